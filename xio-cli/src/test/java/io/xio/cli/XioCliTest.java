package io.xio.cli;

import io.xio.cli.server.Inventory;
import io.xio.cli.server.InventoryServer;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The command line against a live Spring Boot server on a random port, run in this JVM. */
@SpringBootTest(classes = InventoryServer.class,
    properties = {"xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0"})
class XioCliTest
{
    @Autowired
    private XioServiceExporter exporter;

    private String uri()
    {
        return Cli.uri(exporter);
    }

    @Test
    void listShowsTheExportedServices()
    {
        final Cli list = Cli.run("list", uri());
        assertThat(list.status()).as(list.err()).isZero();
        final JsonNode services = list.json();
        assertThat(services).hasSize(1);
        assertThat(services.get(0).get("name").asString()).isEqualTo("inventory");
        assertThat(services.get(0).get("type").asString()).isEqualTo(Inventory.class.getName());
    }

    @Test
    void describeShowsTheMethodsWithJsonSchemas()
    {
        final Cli describe = Cli.run("describe", uri(), "inventory");
        assertThat(describe.status()).as(describe.err()).isZero();
        final JsonNode service = describe.json();
        final Map<String, JsonNode> methods = new HashMap<>();
        service.get("methods").forEach(method -> methods.put(method.get("wireName").asString(), method));
        assertThat(methods).containsOnlyKeys("put(Item)", "get(String)", "take(String,int)", "add(int,int)",
            "add(long,long,long)", "counts(List)", "tree()", "clear()", "restock(String)", "fail(String)");
        assertThat(methods.get("put(Item)").get("parameters").get(0).get("schema").get("$ref").asString())
            .isEqualTo("#/$defs/Item");
        final JsonNode item = service.get("$defs").get("Item").get("properties");
        assertThat(item.get("colour").get("$ref").asString()).isEqualTo("#/$defs/Colour");
        assertThat(service.get("$defs").get("Colour").get("enum").toString()).isEqualTo("[\"RED\",\"GREEN\"]");
        assertThat(service.get("$defs").get("Category").get("properties").get("children").get("items")
            .get("$ref").asString()).as("a type that contains itself refers to itself").isEqualTo("#/$defs/Category");
        assertThat(methods.get("clear()").get("returns").isNull()).isTrue();
    }

    @Test
    void describeSaysWhichMethodsAreIdempotentAndWhichExactlyOnce()
    {
        final Cli describe = Cli.run("describe", uri(), "inventory");
        assertThat(describe.status()).as(describe.err()).isZero();
        final Map<String, JsonNode> methods = new HashMap<>();
        describe.json().get("methods").forEach(method -> methods.put(method.get("wireName").asString(), method));

        assertThat(methods.get("take(String,int)").get("exactlyOnce").asBoolean()).isTrue();
        assertThat(methods.get("take(String,int)").get("idempotent").asBoolean()).isFalse();
        assertThat(methods.get("get(String)").get("idempotent").asBoolean()).isTrue();
        assertThat(methods.get("get(String)").get("exactlyOnce").asBoolean()).isFalse();
        assertThat(methods.get("put(Item)").get("exactlyOnce").asBoolean()).isFalse();
        assertThat(methods.get("put(Item)").get("idempotent").asBoolean()).isFalse();
    }

    @Test
    void anExactlyOnceCallRunsOnceAndItsKeyReplaysItsAnswer()
    {
        final Cli put = Cli.run("call", uri(), "inventory", "put",
            "[{\"sku\": \"chisel\", \"count\": 10, \"colour\": \"GREEN\", \"tags\": []}]");
        assertThat(put.status()).as(put.err()).isZero();

        final Cli take = Cli.run("call", uri(), "inventory", "take", "[\"chisel\", 3]");
        assertThat(take.status()).as("sent with a key, which the server requires: " + take.err()).isZero();
        assertThat(take.json().get("count").asInt()).isEqualTo(7);
        final String key = take.idempotencyKey();

        final Cli again = Cli.run("--idempotency-key", key, "call", uri(), "inventory", "take", "[\"chisel\", 3]");
        assertThat(again.status()).as(again.err()).isZero();
        assertThat(again.json().get("count").asInt()).as("the first call's answer, replayed").isEqualTo(7);
        assertThat(again.idempotencyKey()).isEqualTo(key);
        assertThat(stock("chisel")).as("take did not run again").isEqualTo(7);

        final Cli another = Cli.run("call", uri(), "inventory", "take", "[\"chisel\", 3]");
        assertThat(another.status()).as(another.err()).isZero();
        assertThat(another.idempotencyKey()).as("a call of its own gets a key of its own").isNotEqualTo(key);
        assertThat(another.json().get("count").asInt()).isEqualTo(4);
        assertThat(stock("chisel")).isEqualTo(4);
    }

    @Test
    void anIdempotencyKeyIsForExactlyOnceMethodsAndMustBeAValidKey()
    {
        final Cli invalid = Cli.run("--idempotency-key", "not a key", "call", uri(), "inventory", "take",
            "[\"chisel\", 1]");
        assertThat(invalid.status()).isEqualTo(Main.USAGE);
        assertThat(invalid.err()).contains("--idempotency-key").contains("A-Z a-z 0-9 - _ . :");

        final Cli notExactlyOnce = Cli.run("--idempotency-key", "order-17", "call", uri(), "inventory",
            "add(int,int)", "[1, 2]");
        assertThat(notExactlyOnce.status()).isEqualTo(Main.USAGE);
        assertThat(notExactlyOnce.err()).contains("--idempotency-key is for exactly-once methods");

        final Cli list = Cli.run("--idempotency-key", "order-17", "list", uri());
        assertThat(list.status()).isEqualTo(Main.USAGE);
        assertThat(list.err()).contains("--idempotency-key is for 'call'");
    }

    @Test
    void callSendsJsonArgumentsAndPrintsTheJsonAnswer()
    {
        final Cli put = Cli.run("call", uri(), "inventory", "put",
            "[{\"sku\": \"hammer\", \"count\": 3, \"colour\": \"RED\", \"tags\": [\"tools\"]}]");
        assertThat(put.status()).as(put.err()).isZero();
        assertThat(put.json().get("sku").asString()).isEqualTo("hammer");

        final Cli get = Cli.run("call", uri(), "inventory", "get", "\"hammer\""); // one parameter: the value alone
        assertThat(get.status()).as(get.err()).isZero();
        assertThat(get.json().get("colour").asString()).isEqualTo("RED");
        assertThat(get.json().get("count").asInt()).isEqualTo(3);

        final Cli counts = Cli.run("call", uri(), "inventory", "counts", "[[\"hammer\", \"saw\"]]");
        assertThat(counts.json().get("hammer").asInt()).isEqualTo(3);
        assertThat(counts.json().get("saw").asInt()).isZero();

        final Cli add = Cli.run("call", uri(), "inventory", "add(long,long,long)", "[1, 2, 3]");
        assertThat(add.status()).as(add.err()).isZero();
        assertThat(add.out().trim()).isEqualTo("6");

        final Cli clear = Cli.run("call", uri(), "inventory", "clear");
        assertThat(clear.status()).as(clear.err()).isZero();
        assertThat(clear.out()).isEmpty();
    }

    @Test
    void aOneWayCallIsSentWithAReceipt()
    {
        final Cli restock = Cli.run("call", uri(), "inventory", "restock", "\"nail\"");
        assertThat(restock.status()).as(restock.err()).isZero();
        assertThat(restock.out()).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() ->
            Cli.run("call", uri(), "inventory", "counts", "[[\"nail\"]]").json().get("nail").asInt() == 1);
    }

    @Test
    void anUnknownMethodOrServiceIsAUsageErrorNamingWhatThereIs()
    {
        final Cli method = Cli.run("call", uri(), "inventory", "remove", "[]");
        assertThat(method.status()).isEqualTo(Main.USAGE);
        assertThat(method.err()).contains("no method 'remove'").contains("add(int,int)");

        final Cli overloaded = Cli.run("call", uri(), "inventory", "add", "[1, 2]");
        assertThat(overloaded.status()).isEqualTo(Main.USAGE);
        assertThat(overloaded.err()).contains("2 methods named 'add'").contains("add(long,long,long)");

        final Cli service = Cli.run("describe", uri(), "warehouse");
        assertThat(service.status()).isEqualTo(Main.USAGE);
        assertThat(service.err()).contains("no service 'warehouse'");
    }

    @Test
    void aFailedCallShowsTheServersCodeAndMessage()
    {
        final Cli fail = Cli.run("call", uri(), "inventory", "fail", "[\"out of stock\"]");
        assertThat(fail.status()).isEqualTo(Main.CALL_FAILED);
        assertThat(fail.err()).contains("out of stock").contains("IllegalStateException");

        final Cli wrongType = Cli.run("call", uri(), "inventory", "add(int,int)", "[\"one\", 2]");
        assertThat(wrongType.status()).isEqualTo(Main.CALL_FAILED);
        assertThat(wrongType.err()).contains("INVALID_ARGUMENT");
    }

    @Test
    void aBadCommandLineOrAnUnreachableServerFailsClearly()
    {
        assertThat(Cli.run("frobnicate", uri()).status()).isEqualTo(Main.USAGE);
        final Cli notJson = Cli.run("call", uri(), "inventory", "get", "{not json");
        assertThat(notJson.status()).isEqualTo(Main.USAGE);
        assertThat(notJson.err()).contains("not JSON");
        final Cli local = Cli.run("list", "local://demo");
        assertThat(local.status()).isEqualTo(Main.USAGE);
        assertThat(local.err()).contains("inside their own JVM");
        final Cli unknownOption = Cli.run("--colour", "list", uri());
        assertThat(unknownOption.status()).isEqualTo(Main.USAGE);
        assertThat(unknownOption.err()).contains("unknown option --colour");
        final Cli help = Cli.run("--help");
        assertThat(help.status()).isZero();
        assertThat(help.out()).contains("usage: xio");

        final Cli unreachable = Cli.run("--timeout", "2s", "list", "tcp://127.0.0.1:1");
        assertThat(unreachable.status()).isEqualTo(Main.NOT_CONNECTED);
        assertThat(unreachable.err()).contains("127.0.0.1:1");
    }

    /** How many of {@code sku} the server has, asked through the command line. */
    private int stock(final String sku)
    {
        return Cli.run("call", uri(), "inventory", "counts", "[[\"" + sku + "\"]]").json().get(sku).asInt();
    }
}
