package io.xio.spring.autoconfigure.http;

import io.swagger.parser.OpenAPIParser;
import io.swagger.v3.oas.models.SpecVersion;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import io.xio.spring.http.openapi.OpenApiDocument;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The OpenAPI document the application serves, end to end on Spring MVC: fetched over HTTP behind the web chain,
 * valid for swagger-parser, and a Java client OpenAPI Generator makes from it ({@code native} library) calls the
 * running services and gets their answers and problems.
 */
@SpringBootTest(classes = HttpShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"spring.main.web-application-type=servlet", "xio.contexts=1", "xio.idle.busy-poll=0s",
        "xio.portals[0].uri=tcp://127.0.0.1:0", "xio.http.enabled=true", "spring.application.name=shop",
        "spring.main.banner-mode=off"})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OpenApiGeneratedClientTest
{
    private static final JsonMapper JSON = new JsonMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @LocalServerPort
    private int port;

    @Autowired
    private OpenApiDocument served;

    private String document;
    private GeneratedClient client;

    @BeforeAll
    void generate(@TempDir final Path directory) throws Exception
    {
        final HttpResponse<String> fetched = fetch(HttpShopApplication.ALICE);
        assertThat(fetched.statusCode()).isEqualTo(200);
        assertThat(fetched.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
            assertThat(type).startsWith("application/json"));
        document = fetched.body();
        client = GeneratedClient.generate(document, directory);
    }

    @AfterAll
    void close() throws Exception
    {
        if (client != null)
        {
            client.close();
        }
    }

    private HttpResponse<String> fetch(final String user) throws Exception
    {
        final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base() + "/xio/openapi.json"))
            .timeout(Duration.ofSeconds(30)).GET();
        if (user != null)
        {
            request.header("Authorization", basic(user));
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String base()
    {
        return "http://127.0.0.1:" + port;
    }

    private static String basic(final String user)
    {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-secret")
            .getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theServedDocumentIsValidOpenApi31AndBuiltOnce() throws Exception
    {
        final ParseOptions options = new ParseOptions();
        options.setResolve(true);
        final SwaggerParseResult result = new OpenAPIParser().readContents(document, null, options);

        assertThat(result.getMessages()).isEmpty();
        assertThat(result.getOpenAPI().getSpecVersion()).isEqualTo(SpecVersion.V31);
        assertThat(result.getOpenAPI().getInfo().getTitle()).isEqualTo("shop");
        assertThat(result.getOpenAPI().getPaths()).containsKeys("/xio/catalog/get(String)",
            "/xio/catalog/find(String,int)", "/xio/catalog/checksum(byte%5B%5D)");
        assertThat(served.answer().body()).as("kept, not built again").isSameAs(served.answer().body());
        assertThat(fetch(HttpShopApplication.ALICE).body()).isEqualTo(document);
    }

    @Test
    void theDocumentIsBehindTheWebChainAsTheRoutesAre() throws Exception
    {
        assertThat(fetch(null).statusCode()).isEqualTo(401);
    }

    @Test
    void onlyPrimitiveParametersAreRequiredAsTheGatewayTakesAMissingObjectAsNull() throws Exception
    {
        final JsonNode schemas = JSON.readTree(document).at("/components/schemas");

        assertThat(schemas.at("/CatalogFindWithStringIntRequest/required").toString()).isEqualTo("[\"limit\"]");
        assertThat(schemas.get("CatalogGreetRequest").has("required")).isFalse();
        assertThat(call("catalogGreet", request("CatalogGreetRequest", "setName", "Ann"))).isEqualTo("hello Ann");
    }

    @Test
    void aRecordResultBecomesTheGeneratedModel() throws Exception
    {
        final Object item = call("catalogGet", request("CatalogGetRequest", "setSku", "b-1"));

        assertThat(item.getClass().getName()).isEqualTo(GeneratedClient.PACKAGE + ".model.Item");
        assertThat(item.getClass().getMethod("getName").invoke(item)).isEqualTo("Dune");
        assertThat(item.getClass().getMethod("getStock").invoke(item)).isEqualTo(3);
        assertThat(item.getClass().getMethod("getTags").invoke(item)).isEqualTo(List.of("sf"));
    }

    @Test
    void aListResultAndAnOverloadAreCalledByTheirOwnOperations() throws Exception
    {
        final List<?> all = (List<?>)call("catalogFindWithString", request("CatalogFindWithStringRequest",
            "setText", "Dune"));
        final Object limited = request("CatalogFindWithStringIntRequest", "setText", "Dune");
        limited.getClass().getMethod("setLimit", Integer.class).invoke(limited, 1);

        assertThat(all).hasSize(2);
        assertThat((List<?>)call("catalogFindWithStringInt", limited)).hasSize(1);
    }

    @Test
    void aPercentEncodedOverloadReachesItsMethod() throws Exception
    {
        final byte[] data = {1, 2, 3};
        final CRC32 crc = new CRC32();
        crc.update(data);
        final Object bytes = client.type("model.CatalogChecksumWithByteArrayRequest").getConstructor().newInstance();
        bytes.getClass().getMethod("setData", byte[].class).invoke(bytes, (Object)data);

        assertThat(call("catalogChecksumWithByteArray", bytes)).isEqualTo(crc.getValue());
        assertThat(call("catalogChecksumWithString", request("CatalogChecksumWithStringRequest", "setText",
            "\u0001\u0002\u0003"))).isEqualTo(-crc.getValue());
    }

    @Test
    void aProblemIsAnApiExceptionWithTheStatusAndXiosCode() throws Exception
    {
        assertThatThrownBy(() -> call("catalogGet", request("CatalogGetRequest", "setSku", "nope")))
            .isInstanceOf(InvocationTargetException.class)
            .extracting(Throwable::getCause)
            .satisfies(failure ->
            {
                assertThat(failure.getClass().getName()).isEqualTo(GeneratedClient.PACKAGE + ".ApiException");
                assertThat(failure.getClass().getMethod("getCode").invoke(failure)).isEqualTo(404);
                final JsonNode problem = JSON.readTree((String)failure.getClass().getMethod("getResponseBody")
                    .invoke(failure));
                assertThat(problem.get("code").asString()).isEqualTo("NOT_FOUND");
                assertThat(problem.get("detail").asString()).isEqualTo("no item nope");
            });
    }

    /** A request model {@code type} with one string property set. */
    private Object request(final String type, final String setter, final String value) throws Exception
    {
        final Object request = client.type("model." + type).getConstructor().newInstance();
        request.getClass().getMethod(setter, String.class).invoke(request, value);
        return request;
    }

    /** Calls the catalog's operation {@code name} as alice, with its request model and no timeout header. */
    private Object call(final String name, final Object arguments) throws Exception
    {
        final Class<?> invoker = client.type("ApiClient");
        final Object apiClient = invoker.getConstructor().newInstance();
        invoker.getMethod("updateBaseUri", String.class).invoke(apiClient, base());
        final Consumer<HttpRequest.Builder> credentials = request -> request.header("Authorization",
            basic(HttpShopApplication.ALICE));
        invoker.getMethod("setRequestInterceptor", Consumer.class).invoke(apiClient, credentials);
        final Object api = client.type("api.CatalogApi").getConstructor(invoker).newInstance(apiClient);
        final Method method = Arrays.stream(api.getClass().getMethods()).filter(m -> m.getName().equals(name))
            .min(java.util.Comparator.comparingInt(Method::getParameterCount)).orElseThrow();
        final Object[] values = new Object[method.getParameterCount()];
        for (int i = 0; i < values.length; i++)
        {
            values[i] = method.getParameterTypes()[i] == arguments.getClass() ? arguments : null;
        }
        return method.invoke(api, values);
    }
}
