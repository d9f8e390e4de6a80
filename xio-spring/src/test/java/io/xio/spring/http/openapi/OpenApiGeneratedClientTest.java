package io.xio.spring.http.openapi;

import com.sun.net.httpserver.HttpServer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Java client generated from the document by OpenAPI Generator compiles and has an API per service with a method
 * per operation, named by the operation ids, and a model per type; it sends the gateway's requests (route, arguments
 * by parameter name, headers) and reads its answers and problems, here from a loopback server that plays the gateway
 * and checks what it is sent.
 */
class OpenApiGeneratedClientTest
{
    private static final JsonMapper JSON = new JsonMapper();

    @TempDir
    static Path directory;

    private static GeneratedClient client;

    @BeforeAll
    static void generate() throws IOException
    {
        final String document = JSON.writeValueAsString(new OpenApiDocumentBuilder().title("Shop")
            .build(ShopServices.descriptions()));
        client = GeneratedClient.generate(document, directory);
    }

    @AfterAll
    static void close() throws IOException
    {
        client.close();
    }

    @Test
    void eachServiceIsAnApiWithAMethodPerOperation() throws ClassNotFoundException
    {
        final Set<String> catalog = methods(client.type("api.ShopCatalogApi"));

        assertThat(catalog).contains("shopCatalogFindWithString", "shopCatalogFindWithStringInt",
            "shopCatalogSearch", "shopCatalogStock", "shopCatalogLookup", "shopCatalogPage", "shopCatalogTree",
            "shopCatalogTouch", "shopCatalogLog", "shopCatalogLater", "shopCatalogRefresh",
            "shopCatalogReindex", "shopCatalogWatch", "shopCatalogChecksum",
            "shopCatalogThumbnail", "shopCatalogStatus", "shopCatalogOrder", "shopCatalogPriceOf");
        assertThat(catalog).noneMatch(name -> name.toLowerCase(java.util.Locale.ROOT).contains("importall"));
        assertThat(methods(client.type("api.BillingApi"))).contains("billingInvoice", "billingCatalogProduct");
    }

    @Test
    void eachTypeIsAModel() throws ClassNotFoundException
    {
        assertThat(properties(client.type("model.Product"))).contains("getSku", "getPrice", "getKind", "getTags",
            "getNote", "getAdded", "getPicture", "getStock");
        assertThat(properties(client.type("model.Product2"))).contains("getId", "getCents");
        assertThat(properties(client.type("model.Category"))).contains("getChildren");
        assertThat(properties(client.type("model.PageOfProduct"))).contains("getItems", "getTotal");
        assertThat(client.type("model.Kind").isEnum()).isTrue();
        assertThat(properties(client.type("model.XioProblem"))).contains("getCode", "getDetail", "getStatus");
        assertThat(properties(client.type("model.ShopCatalogFindWithStringIntRequest")))
            .contains("getSku", "getRevision");
    }

    @Test
    void theClientSendsTheGatewaysRequestAndReadsTheResult() throws Exception
    {
        final ShopServices.Product product = new ShopServices.Product("sku-1", "Dune", new BigDecimal("9.90"),
            ShopServices.Kind.BOOK, List.of("sf"), Optional.empty(), Instant.parse("2026-01-02T03:04:05Z"),
            new byte[] {1, 2, 3}, 7);
        try (FakeGateway gateway = new FakeGateway(200, "application/json", JSON.writeValueAsString(product)))
        {
            final Object api = api("api.ShopCatalogApi", gateway.uri());
            final Object arguments = client.type("model.ShopCatalogFindWithStringIntRequest")
                .getConstructor().newInstance();
            arguments.getClass().getMethod("setSku", String.class).invoke(arguments, "sku-1");
            arguments.getClass().getMethod("setRevision", Integer.class).invoke(arguments, 3);

            final Object result = call(api, "shopCatalogFindWithStringInt", arguments, "250ms");

            assertThat(gateway.request.get()).isEqualTo("POST /xio/shop.catalog/find(String,int)");
            assertThat(JSON.readTree(gateway.body.get()))
                .isEqualTo(JSON.readTree("{\"sku\":\"sku-1\",\"revision\":3}"));
            assertThat(gateway.timeout.get()).isEqualTo("250ms");
            assertThat(result.getClass().getMethod("getSku").invoke(result)).isEqualTo("sku-1");
            assertThat(result.getClass().getMethod("getPrice").invoke(result)).isEqualTo(new BigDecimal("9.90"));
            assertThat(result.getClass().getMethod("getKind").invoke(result)).hasToString("BOOK");
            assertThat((byte[])result.getClass().getMethod("getPicture").invoke(result)).containsExactly(1, 2, 3);
            assertThat(result.getClass().getMethod("getStock").invoke(result)).isEqualTo(7);
        }
    }

    @Test
    void theClientReachesARouteWhosePathIsEncoded() throws Exception
    {
        try (FakeGateway gateway = new FakeGateway(200, "application/json", "\"0a1b\""))
        {
            final Object api = api("api.ShopCatalogApi", gateway.uri());
            final Object arguments = client.type("model.ShopCatalogChecksumRequest").getConstructor().newInstance();
            arguments.getClass().getMethod("setImage", byte[].class).invoke(arguments, (Object)new byte[] {1, 2, 3});

            assertThat(call(api, "shopCatalogChecksum", arguments, null)).isEqualTo("0a1b");
            assertThat(gateway.request.get()).isEqualTo("POST /xio/shop.catalog/checksum(byte[])");
            assertThat(gateway.rawPath.get()).isEqualTo("/xio/shop.catalog/checksum(byte%5B%5D)");
            assertThat(JSON.readTree(gateway.body.get()).get("image").asString()).isEqualTo("AQID");
        }
    }

    @Test
    void aProblemReachesTheCallerWithItsStatusAndCode() throws Exception
    {
        try (FakeGateway gateway = new FakeGateway(404, "application/problem+json", "{\"type\":\"about:blank\"," +
            "\"title\":\"Not Found\",\"status\":404,\"detail\":\"no product sku-9\",\"code\":\"NOT_FOUND\"}"))
        {
            final Object api = api("api.ShopCatalogApi", gateway.uri());
            final Object arguments = client.type("model.ShopCatalogFindWithStringRequest").getConstructor()
                .newInstance();
            arguments.getClass().getMethod("setSku", String.class).invoke(arguments, "sku-9");

            assertThatThrownBy(() -> call(api, "shopCatalogFindWithString", arguments, null))
                .isInstanceOf(InvocationTargetException.class)
                .extracting(Throwable::getCause)
                .satisfies(failure ->
                {
                    assertThat(failure.getClass().getName()).isEqualTo(GeneratedClient.PACKAGE + ".ApiException");
                    assertThat(failure.getClass().getMethod("getCode").invoke(failure)).isEqualTo(404);
                    final Object body = failure.getClass().getMethod("getResponseBody").invoke(failure);
                    final Object problem = JSON.readValue((String)body, java.util.Map.class);
                    assertThat(problem).asString().contains("code=NOT_FOUND");
                });
        }
    }

    /** The generated API {@code name} of a client whose base URI is {@code base}. */
    private static Object api(final String name, final String base) throws Exception
    {
        final Class<?> invoker = client.type("ApiClient");
        final Object apiClient = invoker.getConstructor().newInstance();
        invoker.getMethod("updateBaseUri", String.class).invoke(apiClient, base);
        return client.type(name).getConstructor(invoker).newInstance(apiClient);
    }

    /** Calls the operation {@code name} with its request model and the timeout header, whatever order they take. */
    private static Object call(final Object api, final String name, final Object arguments,
        final @Nullable String timeout) throws Exception
    {
        final Method method = Arrays.stream(api.getClass().getMethods()).filter(m -> m.getName().equals(name))
            .min(java.util.Comparator.comparingInt(Method::getParameterCount)).orElseThrow(); // not the headers one
        final Object[] values = new Object[method.getParameterCount()];
        for (int i = 0; i < values.length; i++)
        {
            values[i] = method.getParameterTypes()[i] == arguments.getClass() ? arguments : timeout;
        }
        return method.invoke(api, values);
    }

    /**
     * A loopback HTTP server in place of the gateway: records the one request it is sent and gives one answer.
     */
    private static final class FakeGateway implements AutoCloseable
    {
        final AtomicReference<String> request = new AtomicReference<>();
        final AtomicReference<String> rawPath = new AtomicReference<>();
        final AtomicReference<String> body = new AtomicReference<>();
        final AtomicReference<String> timeout = new AtomicReference<>();
        private final HttpServer server;

        FakeGateway(final int status, final String contentType, final String answer) throws IOException
        {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/", exchange ->
            {
                request.set(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
                rawPath.set(exchange.getRequestURI().getRawPath());
                body.set(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                timeout.set(exchange.getRequestHeaders().getFirst("xio-timeout"));
                final byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", contentType);
                exchange.sendResponseHeaders(status, bytes.length);
                try (var out = exchange.getResponseBody())
                {
                    out.write(bytes);
                }
            });
            server.start();
        }

        String uri()
        {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close()
        {
            server.stop(0);
        }
    }

    private static Set<String> methods(final Class<?> type)
    {
        return Arrays.stream(type.getMethods()).map(Method::getName).collect(Collectors.toSet());
    }

    private static Set<String> properties(final Class<?> type)
    {
        return methods(type).stream().filter(name -> name.startsWith("get")).collect(Collectors.toSet());
    }
}
