package io.xio.spring.http.openapi;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The document's schemas against JSON the services' mapper writes, checked by a JSON Schema 2020-12 validator (the
 * dialect of OpenAPI 3.1): what a service answers and what a caller sends pass, a payload that breaks the schema
 * does not.
 */
class OpenApiPayloadsTest
{
    /** The mapper the services' JSON codec has in {@link ShopServices}. */
    private static final JsonMapper JSON = new JsonMapper();

    private final JsonNode document = JSON.valueToTree(new OpenApiDocumentBuilder()
        .build(ShopServices.descriptions()));

    @Test
    void resultsAsTheMapperWritesThemMatchTheirSchemas()
    {
        final ShopServices.Product product = new ShopServices.Product("sku-1", "Dune", new BigDecimal("9.90"),
            ShopServices.Kind.BOOK, List.of("sf"), Optional.empty(), Instant.parse("2026-01-02T03:04:05Z"),
            new byte[] {1, 2, 3}, 7);
        final ShopServices.Category tree = new ShopServices.Category("all", List.of(
            new ShopServices.Category("books", List.of(new ShopServices.Category("sf", List.of())))));

        assertThat(errors(answer("find(String)"), JSON.valueToTree(product))).isEmpty();
        assertThat(errors(answer("tree(String)"), JSON.valueToTree(tree))).isEmpty();
        assertThat(errors(answer("page(int,int)"), JSON.valueToTree(
            new ShopServices.Page<>(List.of(product), 0, 1)))).isEmpty();
        assertThat(errors(answer("stock(Set)"), JSON.valueToTree(Map.of("sku-1", 3)))).isEmpty();
    }

    @Test
    void argumentsByParameterNameMatchTheRequestSchema()
    {
        final Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put("order", new ShopServices.Order("sku-1", 2,
            new ShopServices.Order.Address("Main St 1", "Springfield", Optional.of("12345"))));
        assertThat(errors(request("order(Order)"), JSON.valueToTree(arguments))).isEmpty();

        final Map<String, Object> query = Map.of("query", new ShopServices.Query("dune",
            Set.of(ShopServices.Kind.BOOK), Map.of("price", List.of(1, 10))));
        assertThat(errors(request("search(Query)"), JSON.valueToTree(query))).isEmpty();
        assertThat(errors(request("checksum(byte%5B%5D)"), JSON.readTree("{\"image\":\"AQID\"}"))).isEmpty();
    }

    @Test
    void aPayloadThatBreaksTheSchemaIsRefused()
    {
        assertThat(errors(request("find(String,int)"), JSON.readTree("{\"sku\":\"a\"}")))
            .as("a parameter missing").isNotEmpty();
        assertThat(errors(request("find(String,int)"), JSON.readTree("{\"sku\":\"a\",\"revision\":\"two\"}")))
            .as("a string for an int").isNotEmpty();
        final ObjectNode product = (ObjectNode)JSON.valueToTree(new ShopServices.Product("s", "n", BigDecimal.ONE,
            ShopServices.Kind.GAME, List.of(), Optional.empty(), Instant.EPOCH, new byte[0], 0));
        product.put("kind", "VINYL");
        assertThat(errors(answer("find(String)"), product)).as("a value the enum lacks").isNotEmpty();
    }

    @Test
    void problemDetailsMatchTheProblemSchema()
    {
        final JsonNode problem = JSON.readTree("{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404," +
            "\"detail\":\"no product sku-9\",\"code\":\"NOT_FOUND\"}");
        assertThat(errors("#/components/schemas/XioProblem", problem)).isEmpty();
        final ObjectNode unknown = (ObjectNode)problem.deepCopy();
        unknown.put("code", "TEAPOT");
        assertThat(errors("#/components/schemas/XioProblem", unknown)).isNotEmpty();
    }

    /** A reference to the schema of {@code method}'s result, where the operation has it. */
    private static String answer(final String method)
    {
        return operation(method) + "/responses/200/content/application~1json/schema";
    }

    /** A reference to the schema of {@code method}'s arguments. */
    private static String request(final String method)
    {
        return operation(method) + "/requestBody/content/application~1json/schema";
    }

    private static String operation(final String method)
    {
        // A JSON pointer in a URI fragment: the path's own percent signs are escaped once more
        return "#/paths/" + ("/xio/" + ShopServices.CATALOG + "/" + method).replace("~", "~0").replace("/", "~1")
            .replace("%", "%25") + "/post";
    }

    /** What a 2020-12 validator finds wrong with {@code payload} as the component {@code reference}. */
    private List<Error> errors(final String reference, final JsonNode payload)
    {
        assertThat(document.at(reference.substring(1).replace("%25", "%")).isObject()).as(reference).isTrue();
        // The document is the schema resource: its components resolve as JSON pointers, its other members are
        // keywords a validator does not know, and ignores.
        final ObjectNode schema = (ObjectNode)document.deepCopy();
        schema.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        schema.put("$ref", reference);
        final Schema validator = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
            .getSchema(JSON.writeValueAsString(schema));
        return validator.validate(payload);
    }
}
