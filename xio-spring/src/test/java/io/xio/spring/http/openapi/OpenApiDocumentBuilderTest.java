package io.xio.spring.http.openapi;

import io.swagger.parser.OpenAPIParser;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.SpecVersion;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The document of realistic services, as a validator and a reader of it see it: valid OpenAPI 3.1 without a
 * message, every reference resolved, and each method's route, arguments and answers as the gateway serves them.
 */
class OpenApiDocumentBuilderTest
{
    private static final JsonMapper JSON = new JsonMapper();
    private static final String CATALOG = "/xio/" + ShopServices.CATALOG + "/";

    private final Map<String, Object> document = new OpenApiDocumentBuilder().title("Shop").version("2.1")
        .server("http://127.0.0.1:8080").build(ShopServices.descriptions());
    private final JsonNode tree = JSON.valueToTree(document);

    @Test
    void isValidOpenApi31ForARealValidator()
    {
        final ParseOptions options = new ParseOptions();
        options.setResolve(true);
        final SwaggerParseResult result = new OpenAPIParser().readContents(JSON.writeValueAsString(document), null,
            options);

        assertThat(result.getMessages()).isEmpty();
        final OpenAPI api = result.getOpenAPI();
        assertThat(api.getSpecVersion()).isEqualTo(SpecVersion.V31);
        assertThat(api.getOpenapi()).startsWith("3.1.");
        assertThat(api.getInfo().getTitle()).isEqualTo("Shop");
        assertThat(api.getInfo().getVersion()).isEqualTo("2.1");
        assertThat(api.getPaths()).containsKey(CATALOG + "find(String)");
    }

    @Test
    void everyReferenceNamesAComponentAndNoDefinitionIsLeft()
    {
        final List<String> references = new ArrayList<>();
        collect(tree, references);

        assertThat(references).isNotEmpty().allSatisfy(reference ->
        {
            assertThat(reference).startsWith("#/components/");
            assertThat(tree.at(reference.substring(1)).isMissingNode()).as(reference).isFalse();
        });
        assertThat(JSON.writeValueAsString(document)).doesNotContain("$defs");
    }

    @Test
    void operationIdsAreUniqueAndNamedAfterServiceAndMethod()
    {
        final Set<String> ids = new HashSet<>();
        tree.get("paths").forEach(item -> assertThat(ids.add(item.get("post").get("operationId").asString()))
            .isTrue());

        assertThat(operation("find(String)").get("operationId").asString()).isEqualTo("shopCatalogFindWithString");
        assertThat(operation("find(String,int)").get("operationId").asString())
            .isEqualTo("shopCatalogFindWithStringInt");
        assertThat(operation("price-of").get("operationId").asString()).isEqualTo("shopCatalogPriceOf");
        assertThat(operation("find(String)").get("tags").get(0).asString()).isEqualTo(ShopServices.CATALOG);
    }

    @Test
    void argumentsAreAnObjectOfTheParametersByNameOfWhichOnlyPrimitivesAreRequired()
    {
        final JsonNode arguments = component(operation("find(String,int)").at(
            "/requestBody/content/application~1json/schema/$ref").asString());

        assertThat(arguments.get("type").asString()).isEqualTo("object");
        assertThat(arguments.get("properties").get("sku").get("type").asString()).isEqualTo("string");
        assertThat(arguments.get("properties").get("revision").get("format").asString()).isEqualTo("int32");
        assertThat(JSON.convertValue(arguments.get("required"), List.class)).as("a String left out is null")
            .containsExactly("revision");
        assertThat(operation("status()").has("requestBody")).as("no parameters, no body").isFalse();
    }

    @Test
    void bytesAreBase64AndTheirOnlySegmentMayBeABinaryBody()
    {
        final JsonNode checksum = operation("checksum(byte%5B%5D)");
        final JsonNode arguments = component(checksum.at("/requestBody/content/application~1json/schema/$ref")
            .asString());

        assertThat(arguments.at("/properties/image/contentEncoding").asString()).isEqualTo("base64");
        assertThat(arguments.at("/properties/image/format").asString()).as("as OpenAPI 3.0 said it").isEqualTo("byte");
        assertThat(checksum.at("/requestBody/content/application~1octet-stream/schema/format").asString())
            .isEqualTo("binary");
        assertThat(operation("thumbnail(String,int)").at("/responses/200/content/application~1json/schema/" +
            "contentEncoding").asString()).isEqualTo("base64");
    }

    @Test
    void answersFollowTheMethodsKind()
    {
        assertThat(ref(operation("find(String)").at("/responses/200/content/application~1json/schema")))
            .isEqualTo("Product");
        assertThat(operation("touch(String)").get("responses").has("204")).isTrue();
        assertThat(operation("touch(String)").get("responses").has("200")).isFalse();
        assertThat(operation("log(String)").get("responses").has("202")).isTrue();
        assertThat(operation("refresh(String)").at("/responses/200/description").asString()).as("Mono<Void>")
            .contains("JSON null");
        assertThat(operation("reindex()").at("/responses/200/description").asString()).as("CompletableFuture<Void>")
            .contains("JSON null");
        assertThat(operation("thumbnail(String,int)").at("/responses/200/content/application~1octet-stream/schema/" +
            "format").asString()).as("bytes, when asked for").isEqualTo("binary");
        assertThat(operation("find(String)").at("/responses/200/content").has("application/octet-stream")).isFalse();
        assertThat(ref(operation("later(String)").at("/responses/200/content/application~1json/schema")))
            .isEqualTo("Product");
        final JsonNode stream = operation("watch(Kind)").at("/responses/200/content");
        assertThat(ref(stream.at("/application~1x-ndjson/schema"))).isEqualTo("Product");
        assertThat(stream.has("text/event-stream")).isTrue();
        assertThat(operation("search(Query)").at("/responses/200/content/application~1json/schema/type").asString())
            .isEqualTo("array");
    }

    @Test
    void streamsTheClientSendsAreLeftOutAndNamedOnTheTag()
    {
        assertThat(tree.get("paths").has(CATALOG + "importAll(Flux)")).isFalse();
        final JsonNode tag = tree.get("tags").valueStream()
            .filter(candidate -> candidate.get("name").asString().equals(ShopServices.CATALOG)).findFirst()
            .orElseThrow();
        assertThat(tag.get("x-xio-not-over-http").get(0).asString()).isEqualTo("importAll(Flux)");
    }

    @Test
    void errorsAreProblemDetailsWithXiosCode()
    {
        final JsonNode responses = operation("find(String)").get("responses");
        for (final String status : List.of("400", "401", "403", "404", "409", "429", "499", "500", "501", "503",
            "504"))
        {
            final JsonNode response = tree.at(responses.get(status).get("$ref").asString().substring(1));
            assertThat(ref(response.at("/content/application~1problem+json/schema"))).as(status)
                .isEqualTo("XioProblem");
        }
        final JsonNode problem = component("#/components/schemas/XioProblem");
        assertThat(ref(problem.at("/properties/code"))).isEqualTo("XioErrorCode");
        assertThat(component("#/components/schemas/XioErrorCode").get("enum").valueStream().map(JsonNode::asString))
            .contains("NOT_FOUND", "DEADLINE_EXCEEDED", "UNAUTHENTICATED");
        assertThat(tree.at("/components/responses/NotFound/description").asString()).contains("NOT_FOUND");
        assertThat(operation("find(String)").get("responses").has("413")).as("a body too large").isTrue();
        assertThat(operation("status()").get("responses").has("413")).as("no body").isFalse();
    }

    @Test
    void headersHintsAndDeadlinesAreDescribed()
    {
        final JsonNode timeout = tree.at("/components/parameters/XioTimeout");
        assertThat(timeout.get("name").asString()).isEqualTo("xio-timeout");
        assertThat(timeout.get("in").asString()).isEqualTo("header");
        assertThat(operation("find(String)").get("parameters").toString()).contains("XioTimeout")
            .doesNotContain("IdempotencyKey");
        final JsonNode order = operation("order(Order)");
        assertThat(order.get("parameters").toString()).contains("#/components/parameters/IdempotencyKey");
        final JsonNode key = tree.at("/components/parameters/IdempotencyKey");
        assertThat(key.get("required").asBoolean()).isTrue();
        assertThat(key.at("/schema/maxLength").asInt()).isPositive();
        assertThat(key.at("/schema/pattern").asString()).isEqualTo("^[A-Za-z0-9._:-]+$");
        assertThat(order.get("x-xio-exactly-once").asBoolean()).isTrue();
        final JsonNode status = operation("status()");
        assertThat(status.get("x-xio-idempotent").asBoolean()).isTrue();
        assertThat(status.get("x-xio-timeout").asString()).isEqualTo("PT2S");
        assertThat(status.get("description").asString()).contains("Idempotent", "Deadline: PT2S");
    }

    @Test
    void typesOfOneNameFromTwoServicesAreTwoComponentsAndOneTypeIsOne()
    {
        // billing is described first, and meets the catalog's Product first (catalogProduct sorts before invoice)
        final JsonNode catalog = component("#/components/schemas/Product");
        final JsonNode billing = component("#/components/schemas/Product_2");

        assertThat(billing.get("properties").has("cents")).isTrue();
        assertThat(catalog.get("properties").has("sku")).isTrue();
        assertThat(ref(operation("find(String)").at("/responses/200/content/application~1json/schema")))
            .as("the catalog's Product, described by both services, is one component").isEqualTo("Product");
        assertThat(tree.at("/components/schemas").has("Product_3")).isFalse();
        assertThat(ref(component("#/components/schemas/Invoice").at("/properties/product"))).isEqualTo("Product_2");
    }

    @Test
    void recursiveGenericNestedAndEnumTypesAreComponents()
    {
        final JsonNode schemas = tree.at("/components/schemas");

        assertThat(ref(schemas.at("/Category/properties/children/items"))).isEqualTo("Category");
        assertThat(ref(schemas.at("/PageOfProduct/properties/items/items"))).isEqualTo("Product");
        assertThat(ref(schemas.at("/Order/properties/shipTo"))).isEqualTo("Address");
        assertThat(schemas.at("/Kind/enum").toString()).isEqualTo("[\"BOOK\",\"MUSIC\",\"GAME\"]");
        assertThat(schemas.at("/Query/properties/ranges/additionalProperties/items/type").asString())
            .isEqualTo("integer");
        assertThat(schemas.at("/Query/properties/kinds/type").asString()).isEqualTo("array");
    }

    @Test
    void pathsStartWithThePrefixAndEncodeWhatAPathCannotHold()
    {
        final Map<String, Object> rooted = new OpenApiDocumentBuilder().prefix("api/rpc/")
            .build(ShopServices.descriptions());

        assertThat(JSON.valueToTree(rooted).get("paths").propertyNames())
            .contains("/api/rpc/shop.catalog/checksum(byte%5B%5D)", "/api/rpc/billing/invoice(Product)");
        assertThat(OpenApiDocumentBuilder.segment("a b/c{d}é")).isEqualTo("a%20b%2Fc%7Bd%7D%C3%A9");
    }

    private JsonNode operation(final String method)
    {
        final JsonNode item = tree.get("paths").get(CATALOG + method);
        assertThat(item).as(method).isNotNull();
        return item.get("post");
    }

    private JsonNode component(final String reference)
    {
        assertThat(reference).startsWith("#/components/");
        return tree.at(reference.substring(1));
    }

    private static String ref(final JsonNode schema)
    {
        return schema.get("$ref").asString().substring("#/components/schemas/".length());
    }

    private static void collect(final JsonNode node, final List<String> references)
    {
        if (node.isObject())
        {
            node.properties().forEach(entry ->
            {
                if (entry.getKey().equals("$ref"))
                {
                    references.add(entry.getValue().asString());
                }
                collect(entry.getValue(), references);
            });
        }
        else if (node.isArray())
        {
            node.forEach(inner -> collect(inner, references));
        }
    }
}
