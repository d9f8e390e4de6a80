package io.xio.spring.reflection;

import io.xio.spring.autoconfigure.reflection.XioReflectionAutoConfiguration;
import io.xio.annotation.XioService;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RemoteException;
import io.xio.engine.Credentials;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.call.XioServerInterceptor;
import io.xio.spring.method.Invocation;
import io.xio.spring.autoconfigure.sample.api.KvStore;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import io.xio.spring.service.ServiceDispatcher;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The reflection resource and calls in JSON, as a client without the services' classes sees them: a bare engine
 * session that names methods and sends JSON arguments, against a server whose codec is the default binary one.
 */
class XioReflectionTest
{
    private static final JsonMapper JSON = new JsonMapper();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
            XioReflectionAutoConfiguration.class))
        .withUserConfiguration(ServerApplication.class, Interceptors.class)
        .withPropertyValues("xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0");

    /** Records every call the interceptors see: reflection and JSON calls are among them. */
    @Configuration(proxyBeanMethods = false)
    static class Interceptors
    {
        @Bean
        List<String> seen()
        {
            return new CopyOnWriteArrayList<>();
        }

        @Bean
        XioServerInterceptor recording(final List<String> seen)
        {
            return (call, chain) ->
            {
                seen.add(call.service() + "/" + call.method().getName());
                return chain.proceed();
            };
        }
    }

    @Test
    void listNamesTheServicesButNotItself()
    {
        runner.run(context ->
        {
            final JsonNode list = call(context, XioReflection.RESOURCE, "list()", "[]");
            assertThat(list.isArray()).isTrue();
            assertThat(list).hasSize(1);
            assertThat(list.get(0).get("name").asString()).isEqualTo("kv");
            assertThat(list.get(0).get("type").asString()).isEqualTo(KvStore.class.getName());
            assertThat(list.get(0).get("methods").asInt()).isGreaterThan(10);
            assertThat(context.getBean("seen", List.class)).contains("xio.reflection/list");
        });
    }

    @Test
    void describeGivesEveryMethodWithJsonSchemasOfItsParametersAndResult()
    {
        runner.run(context ->
        {
            final JsonNode kv = call(context, XioReflection.RESOURCE, "describe(String)", "[\"kv\"]");
            assertThat(kv.get("name").asString()).isEqualTo("kv");
            final Map<String, JsonNode> methods = new java.util.HashMap<>();
            kv.get("methods").forEach(method -> methods.put(method.get("wireName").asString(), method));
            assertThat(methods).containsKeys("get(String)", "put(String,String)", "add(int)", "add(int,int)");

            final JsonNode orders = methods.get("orders(String)");
            assertThat(orders.get("parameters").get(0).get("name").asString()).isEqualTo("customer");
            assertThat(orders.get("parameters").get(0).get("schema").get("type").asString()).isEqualTo("string");
            assertThat(orders.get("returns").get("type").asString()).isEqualTo("array");
            assertThat(orders.get("returns").get("items").get("$ref").asString()).isEqualTo("#/$defs/Order");
            final JsonNode order = kv.get("$defs").get("Order");
            assertThat(order.get("type").asString()).isEqualTo("object");
            assertThat(order.get("title").asString()).as("no class name").isEqualTo("Order");
            assertThat(order.get("properties").get("quantity").get("format").asString()).isEqualTo("int32");
            assertThat(order.get("properties").get("tags").get("items").get("type").asString()).isEqualTo("string");

            final JsonNode stock = methods.get("stock(List)").get("returns");
            assertThat(stock.get("type").asString()).isEqualTo("object");
            assertThat(stock.get("additionalProperties").get("type").toString()).as("Optional<Integer>: or null")
                .isEqualTo("[\"integer\",\"null\"]");
            assertThat(methods.get("size()").get("kind").asString()).isEqualTo("future");
            assertThat(methods.get("size()").get("returns").get("type").asString()).isEqualTo("integer");
            assertThat(methods.get("fire(String)").get("kind").asString()).isEqualTo("one-way");
            final JsonNode cleared = methods.get("clearLater()");
            assertThat(cleared.get("kind").asString()).isEqualTo("future");
            assertThat(cleared.get("returns") == null || cleared.get("returns").isNull())
                .as("a CompletableFuture<Void> answers no value to describe").isTrue();
            assertThat(methods.get("slow()").get("timeout").asString()).isEqualTo("PT0.1S");
            assertThat(methods.get("putBlob(String,ByteBuffer)").get("parameters").get(1).get("segment").asBoolean())
                .isTrue();

            assertThat(call(context, XioReflection.RESOURCE, "describe(String)", "[\"nothing\"]").isNull())
                .as("no such service").isTrue();
            assertEveryReferenceResolves(kv);
        });
    }

    @Test
    void describeOfOneMethodGivesThatMethodAndTheDefinitionsItRefersTo()
    {
        runner.run(context ->
        {
            final JsonNode orders = call(context, XioReflection.RESOURCE, "describe(String,String)",
                "[\"kv\", \"orders\"]");
            assertThat(orders.get("methods")).hasSize(1);
            assertThat(orders.get("methods").get(0).get("wireName").asString()).isEqualTo("orders(String)");
            assertThat(orders.get("$defs").propertyNames()).containsExactly("Order");
            assertEveryReferenceResolves(orders);

            final JsonNode adds = call(context, XioReflection.RESOURCE, "describe(String,String)",
                "[\"kv\", \"add\"]");
            assertThat(adds.get("methods")).as("the overloads of a Java name").hasSize(2);
            assertThat(call(context, XioReflection.RESOURCE, "describe(String,String)", "[\"kv\", \"add(int)\"]")
                .get("methods")).as("a wire name").hasSize(1);
            assertThat(call(context, XioReflection.RESOURCE, "describe(String,String)", "[\"kv\", \"nothing\"]")
                .get("methods")).isEmpty();
        });
    }

    /** Every {@code $ref} in {@code description} names a definition it holds. */
    static void assertEveryReferenceResolves(final JsonNode description)
    {
        final List<String> references = new java.util.ArrayList<>();
        collectReferences(description, references);
        assertThat(references).isNotEmpty();
        for (final String reference : references)
        {
            assertThat(reference).startsWith("#/$defs/");
            assertThat(description.get("$defs").has(reference.substring("#/$defs/".length())))
                .as(reference + " resolves").isTrue();
        }
    }

    private static void collectReferences(final JsonNode node, final List<String> references)
    {
        if (node.has("$ref"))
        {
            references.add(node.get("$ref").asString());
        }
        node.forEach(child -> collectReferences(child, references));
    }

    @Test
    void aServiceTakesACallInJsonThroughItsInterceptorsWhateverTheCodec()
    {
        runner.run(context ->
        {
            call(context, "kv", "put(String,String)", "[\"colour\", \"blue\"]");
            assertThat(call(context, "kv", "get(String)", "[\"colour\"]").asString()).isEqualTo("blue");
            assertThat(call(context, "kv", "add(int,int)", "[2, 3]").asInt()).isEqualTo(5);
            assertThat(call(context, "kv", "orders(String)", "[\"ada\"]").isArray()).isTrue();
            assertThat(context.getBean("seen", List.class)).contains("kv/put", "kv/get", "kv/add", "kv/orders");

            assertThatThrownBy(() -> call(context, "kv", "add(int,int)", "[\"two\", 3]"))
                .hasRootCauseInstanceOf(RemoteException.class).rootCause().hasMessageContaining("INVALID_ARGUMENT");
            assertThatThrownBy(() -> call(context, "kv", "nothing()", "[]"))
                .rootCause().hasMessageContaining("UNIMPLEMENTED").hasMessageContaining("nothing()");
        });
    }

    @Test
    void withReflectionDisabledThereIsNoReflectionResourceAndNoCallInJson()
    {
        runner.withPropertyValues("xio.server.reflection.enabled=false").run(context ->
        {
            assertThat(context).doesNotHaveBean(XioReflectionService.class);
            assertThatThrownBy(() -> call(context, XioReflection.RESOURCE, "list()", "[]"))
                .isInstanceOf(SessionRejectedException.class).hasMessageContaining(XioReflection.RESOURCE);
            assertThatThrownBy(() -> call(context, "kv", "get(String)", "[\"colour\"]"))
                .rootCause().hasMessageContaining("INVALID_ARGUMENT");
        });
    }

    @Test
    void anApplicationServiceCannotTakeAReservedName()
    {
        runner.withUserConfiguration(Squatter.class).run(context -> assertThat(context).getFailure()
            .rootCause().hasMessageContaining("xio.mine").hasMessageContaining("names starting with 'xio.'"));
    }

    /** Claims a name of xio's own. */
    @Configuration(proxyBeanMethods = false)
    static class Squatter
    {
        @Bean
        Mine mine()
        {
            return new Mine();
        }
    }

    /** A service whose name is reserved. */
    @XioService("xio.mine")
    static class Mine implements Runnable
    {
        @Override
        public void run()
        {
        }
    }

    /** One call in JSON over a fresh session, as a generic client makes it; the answer as JSON. */
    static JsonNode call(final ApplicationContext context, final String resource, final String method,
        final String arguments) throws Exception
    {
        return call(context, resource, method, arguments, Credentials.NONE);
    }

    /**
     * As above, authenticated with {@code credentials}; the answer in the header or, for a description, in a data
     * segment; JSON null for none.
     */
    static JsonNode call(final ApplicationContext context, final String resource, final String method,
        final String arguments, final Credentials credentials) throws Exception
    {
        final int port = context.getBean(XioServiceExporter.class).portals().get(0).uri().port();
        try (XioEngine engine = XioEngine.builder().contexts(1).build();
            Session session = open(engine, "tcp://127.0.0.1:" + port + "/" + resource, credentials))
        {
            final Outbound request = Outbound.of(Invocation.header(method, arguments.getBytes(StandardCharsets.UTF_8)))
                .metadata(new Metadata().add(ServiceDispatcher.CODEC_KEY, ServiceDispatcher.JSON));
            try (Message answer = session.request(request).get(10, TimeUnit.SECONDS))
            {
                if (answer.headerLength() == 0 && answer.segmentCount() > 0)
                {
                    final java.nio.ByteBuffer segment = answer.segment(0);
                    final byte[] bytes = new byte[segment.remaining()];
                    segment.get(bytes);
                    return JSON.readTree(bytes);
                }
                return answer.headerLength() == 0 ? JSON.nullNode() : JSON.readTree(answer.headerBytes());
            }
        }
    }

    private static Session open(final XioEngine engine, final String uri, final Credentials credentials)
        throws Exception
    {
        try
        {
            return engine.openSession(uri, SessionOptions.DEFAULT.withCredentials(credentials))
                .get(10, TimeUnit.SECONDS);
        }
        catch (final java.util.concurrent.ExecutionException ex)
        {
            throw ex.getCause() instanceof Exception cause ? cause : ex;
        }
    }
}
