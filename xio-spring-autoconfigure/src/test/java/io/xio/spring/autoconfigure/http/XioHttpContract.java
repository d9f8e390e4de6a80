package io.xio.spring.autoconfigure.http;

import io.xio.spring.autoconfigure.http.shop.MetadataSeen;
import io.xio.spring.autoconfigure.http.shop.ShopService;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.http.XioHttpStatus;
import io.xio.spring.service.ServiceDispatcher;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a plain HTTP client sees of the shop on either web server: JSON calls, segments, streams, deadlines, error
 * statuses, metadata, security and the body limit. Each web server's test runs these against its real port.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@TestPropertySource(properties = {"xio.contexts=1", "xio.idle.busy-poll=0s", "xio.portals[0].uri=tcp://127.0.0.1:0",
    "xio.http.enabled=true", "xio.http.metadata-headers=X-Tenant", "xio.http.max-request-size=64KB",
    "xio.server.services.shop.max-concurrent-calls=4", "xio.server.services.shop.max-queued-calls=4",
    "spring.main.banner-mode=off"})
abstract class XioHttpContract
{
    private static final JsonMapper JSON = new JsonMapper();

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @LocalServerPort
    private int port;

    @Autowired
    private ShopService shop;

    @Autowired
    private MetadataSeen seen;

    @Autowired
    private XioServiceExporter exporter;

    private HttpRequest.Builder post(final String path, final String user)
    {
        final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json");
        return user == null ? request : request.header("Authorization", "Basic " + Base64.getEncoder()
            .encodeToString((user + ":" + user + "-secret").getBytes(StandardCharsets.UTF_8)));
    }

    private HttpResponse<String> call(final String method, final String body, final String... headers)
        throws Exception
    {
        final HttpRequest.Builder request = post("/xio/shop/" + method, HttpShopApplication.ALICE)
            .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0)
        {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(final HttpResponse<String> response)
    {
        return JSON.readTree(response.body());
    }

    @Test
    void aCallWithItsArgumentsByNameAnswersJson() throws Exception
    {
        final HttpResponse<String> response = call("place",
            "{\"item\": \"tea\", \"quantity\": 3, \"tags\": [\"green\", \"loose\"]}",
            "Content-Type", "application/json");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
            assertThat(type).startsWith("application/json"));
        assertThat(json(response)).isEqualTo(JSON.readTree(
            "{\"item\": \"tea\", \"quantity\": 3, \"tags\": [\"green\", \"loose\"]}"));
        assertThat(seen.transports).containsEntry("place", "http");
    }

    @Test
    void aCallWithItsArgumentsInOrderAndByWireNameAnswersTheSame() throws Exception
    {
        final HttpResponse<String> response = call("place(String,int,List)", "[\"tea\", 3, []]");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(json(response).get("quantity").asInt()).isEqualTo(3);
    }

    @Test
    void aVoidMethodAnswers204AndAOneWayMethod202() throws Exception
    {
        assertThat(call("forget", "{\"item\": \"tea\"}").statusCode()).isEqualTo(204);
        assertThat(shop.received().poll(10, TimeUnit.SECONDS)).isEqualTo("forget tea");
        final HttpResponse<String> oneWay = call("ping", "[\"hello\"]");
        assertThat(oneWay.statusCode()).isEqualTo(202);
        assertThat(shop.received().poll(10, TimeUnit.SECONDS)).isEqualTo("ping hello");
    }

    @Test
    void bytesTravelAsBase64InJsonOrRawBothWays() throws Exception
    {
        final HttpResponse<String> base64 = call("reverse", "{\"data\": \"" +
            Base64.getEncoder().encodeToString(new byte[] {1, 2, 3}) + "\"}");
        assertThat(base64.statusCode()).isEqualTo(200);
        assertThat(Base64.getDecoder().decode(json(base64).asString())).containsExactly(3, 2, 1);

        final HttpResponse<byte[]> raw = client.send(post("/xio/shop/reverse", HttpShopApplication.ALICE)
            .setHeader("Content-Type", "application/octet-stream").header("Accept", "application/octet-stream")
            .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {4, 5, 6, 7})).build(),
            HttpResponse.BodyHandlers.ofByteArray());
        assertThat(raw.statusCode()).isEqualTo(200);
        assertThat(raw.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
        assertThat(raw.body()).containsExactly(7, 6, 5, 4);

        final HttpResponse<String> buffer = call("copy", "{\"data\": \"" +
            Base64.getEncoder().encodeToString(new byte[] {9}) + "\", \"times\": 3}");
        assertThat(Base64.getDecoder().decode(json(buffer).asString())).containsExactly(9, 9, 9);

        final HttpResponse<String> notOne = client.send(post("/xio/shop/copy", HttpShopApplication.ALICE)
            .setHeader("Content-Type", "application/octet-stream").POST(HttpRequest.BodyPublishers.ofByteArray(
                new byte[] {1})).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(notOne.statusCode()).isEqualTo(415);
    }

    @Test
    void aServerStreamIsNewlineDelimitedJsonByDefault() throws Exception
    {
        final HttpResponse<String> response = call("count", "{\"to\": 5}");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
            assertThat(type).startsWith("application/x-ndjson"));
        assertThat(response.body()).isEqualTo("1\n2\n3\n4\n5\n");
    }

    @Test
    void aServerStreamIsServerSentEventsWhenTheClientAcceptsThem() throws Exception
    {
        final HttpResponse<String> response = call("count", "[3]", "Accept", "text/event-stream");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
            assertThat(type).startsWith("text/event-stream"));
        assertThat(response.body().replace("\r", "").replace("event: ", "event:").replace("data: ", "data:"))
            .isEqualTo("event:message\ndata:1\n\nevent:message\ndata:2\n\nevent:message\ndata:3\n\n");
    }

    @Test
    void aClientThatLeavesAnEndlessStreamCancelsIt() throws Exception
    {
        final HttpResponse<InputStream> response = client.send(post("/xio/shop/count", HttpShopApplication.ALICE)
            .POST(HttpRequest.BodyPublishers.ofString("[2000000000]")).build(),
            HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        try (InputStream in = response.body())
        {
            assertThat(in.readNBytes(4)).isEqualTo("1\n2\n".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(shop.cancelled().poll(20, TimeUnit.SECONDS)).isEqualTo("count 2000000000");
        // paced by the client: far fewer values asked for than the stream has
        assertThat(shop.counted().get()).isLessThan(100_000_000);
    }

    @Test
    void aDeadlineFromTheTimeoutHeaderOrTheMethodAnswers504() throws Exception
    {
        final HttpResponse<String> late = call("slow", "[2000]", "xio-timeout", "200ms");
        assertThat(late.statusCode()).isEqualTo(504);
        assertThat(json(late).get("code").asString()).isEqualTo("DEADLINE_EXCEEDED");
        assertThat(call("slow", "[10]", "xio-timeout", "5s").body()).isEqualTo("\"slept 10\"");
        // @XioMethod(timeout = "100ms") bounds a longer header
        assertThat(call("slowBounded", "[2000]", "xio-timeout", "10s").statusCode()).isEqualTo(504);
        assertThat(call("slow", "[1]", "xio-timeout", "soon").statusCode()).isEqualTo(400);
    }

    @Test
    void eachXioErrorCodeIsTheStatusGrpcTranscodingGivesItAsAProblem() throws Exception
    {
        for (final XioErrorCode code : XioErrorCode.values())
        {
            final HttpResponse<String> response = call("fail", "[\"" + code.name() + "\"]");
            assertThat(response.statusCode()).as(code.name()).isEqualTo(XioHttpStatus.of(code));
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("application/problem+json"));
            final JsonNode problem = json(response);
            assertThat(problem.get("status").asInt()).isEqualTo(XioHttpStatus.of(code));
            assertThat(problem.get("code").asString()).isEqualTo(code.name());
            assertThat(problem.get("detail").asString()).isEqualTo("failed with " + code.name());
        }
        assertThat(XioHttpStatus.of(XioErrorCode.INVALID_ARGUMENT)).isEqualTo(400);
        assertThat(XioHttpStatus.of(XioErrorCode.UNAUTHENTICATED)).isEqualTo(401);
        assertThat(XioHttpStatus.of(XioErrorCode.PERMISSION_DENIED)).isEqualTo(403);
        assertThat(XioHttpStatus.of(XioErrorCode.NOT_FOUND)).isEqualTo(404);
        assertThat(XioHttpStatus.of(XioErrorCode.ALREADY_EXISTS)).isEqualTo(409);
        assertThat(XioHttpStatus.of(XioErrorCode.ABORTED)).isEqualTo(409);
        assertThat(XioHttpStatus.of(XioErrorCode.RESOURCE_EXHAUSTED)).isEqualTo(429);
        assertThat(XioHttpStatus.of(XioErrorCode.CANCELLED)).isEqualTo(499);
        assertThat(XioHttpStatus.of(XioErrorCode.UNIMPLEMENTED)).isEqualTo(501);
        assertThat(XioHttpStatus.of(XioErrorCode.UNAVAILABLE)).isEqualTo(503);
        assertThat(XioHttpStatus.of(XioErrorCode.DEADLINE_EXCEEDED)).isEqualTo(504);
        assertThat(XioHttpStatus.of(XioErrorCode.INTERNAL)).isEqualTo(500);
    }

    @Test
    void whatNamesNothingIs404AndWhatDoesNotDecodeIs400NamingTheParameter() throws Exception
    {
        assertThat(call("nothing", "").statusCode()).isEqualTo(404);
        assertThat(client.send(post("/xio/nobody/place", HttpShopApplication.ALICE)
            .POST(HttpRequest.BodyPublishers.ofString("")).build(), HttpResponse.BodyHandlers.ofString())
            .statusCode()).isEqualTo(404);
        final HttpResponse<String> malformed = call("place", "{\"item\": ");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(json(malformed).get("code").asString()).isEqualTo("INVALID_ARGUMENT");
        final HttpResponse<String> wrongType = call("place", "{\"item\": \"tea\", \"quantity\": \"many\"}");
        assertThat(wrongType.statusCode()).isEqualTo(400);
        assertThat(json(wrongType).get("detail").asString()).contains("'quantity'");
        final HttpResponse<String> unknown = call("place", "{\"item\": \"tea\", \"colour\": 1}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(json(unknown).get("detail").asString()).contains("'colour'");
        final HttpResponse<String> clientStream = call("upload", "[]");
        assertThat(clientStream.statusCode()).isEqualTo(400);
        assertThat(json(clientStream).get("detail").asString()).contains("xio client");
    }

    @Test
    void onlyAllowListedHeadersBecomeMetadata() throws Exception
    {
        assertThat(call("place", "[\"tea\", 1, []]", "X-Tenant", "acme", "X-Secret", "hidden").statusCode())
            .isEqualTo(200);
        assertThat(seen.byMethod.get("place")).contains("x-tenant=acme").doesNotContain("hidden")
            .doesNotContain("x-secret");
    }

    @Test
    void theWebChainRefusesAnUnknownCallerAndMethodSecurityACallerWithoutTheRole() throws Exception
    {
        assertThat(client.send(post("/xio/shop/secret", null).POST(HttpRequest.BodyPublishers.noBody()).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
        final HttpResponse<String> bob = client.send(post("/xio/shop/secret", HttpShopApplication.BOB)
            .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(bob.statusCode()).isEqualTo(403);
        assertThat(json(bob).get("code").asString()).isEqualTo("PERMISSION_DENIED");
        assertThat(call("secret", "").body()).isEqualTo("\"for buyers\"");
    }

    @Test
    void anExactlyOnceMethodRunsOncePerIdempotencyKeyThroughTheLedger() throws Exception
    {
        final HttpResponse<String> first = call("charge", "[500]", "Idempotency-Key", "order-1");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("1");
        final HttpResponse<String> again = call("charge", "[500]", "Idempotency-Key", "order-1");
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.body()).isEqualTo("1"); // the first call's answer, from the ledger
        assertThat(shop.charges()).isEqualTo(1);
        assertThat(call("charge", "[500]", "Idempotency-Key", "order-2").body()).isEqualTo("2");
        final HttpResponse<String> keyless = call("charge", "[500]");
        assertThat(keyless.statusCode()).isEqualTo(400);
        assertThat(json(keyless).get("detail").asString()).contains("Idempotency-Key");
        assertThat(call("charge", "[500]", "Idempotency-Key", "not a key").statusCode()).isEqualTo(400);
        assertThat(shop.charges()).isEqualTo(2);
    }

    private ServiceDispatcher shopDispatcher()
    {
        return exporter.services().stream().filter(service -> service.resource().equals("shop")).findFirst()
            .orElseThrow();
    }

    /** Waits (at most 20 s) until no call of the shop's runs any more. */
    private void awaitShopIdle()
    {
        await().atMost(Duration.ofSeconds(20)).until(() -> shopDispatcher().running() == 0);
    }

    @Test
    void aStreamCutByItsDeadlineEndsWithDeadlineExceededAndLeavesNoCallRunning() throws Exception
    {
        for (int i = 0; i < 20; i++)
        {
            final HttpResponse<String> cut = call("count", "[2000000000]", "xio-timeout", (1 + i % 5) + "ms");
            if (cut.statusCode() == 200)
            {
                final String[] lines = cut.body().split("\n");
                assertThat(lines[lines.length - 1]).contains("DEADLINE_EXCEEDED");
            }
            else
            {
                assertThat(cut.statusCode()).isEqualTo(504); // the deadline passed before the stream was returned
            }
        }
        final HttpResponse<String> slow = call("count", "[2000000000]", "xio-timeout", "300ms");
        assertThat(slow.statusCode()).isEqualTo(200);
        assertThat(slow.body()).startsWith("1\n2\n").contains("DEADLINE_EXCEEDED");
        awaitShopIdle();
        Thread.sleep(200); // the streams' own cancels may land just after their calls ended
        shop.cancelled().clear();
    }

    @Test
    void callsBeyondTheServiceBoundsAreRefusedWith429WithoutWaiting() throws Exception
    {
        final List<CompletableFuture<HttpResponse<String>>> flood = new ArrayList<>();
        for (int i = 0; i < 12; i++)
        {
            flood.add(client.sendAsync(post("/xio/shop/hang", HttpShopApplication.ALICE).header("xio-timeout", "3s")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()));
        }
        int refused = 0;
        int late = 0;
        for (final CompletableFuture<HttpResponse<String>> response : flood)
        {
            final HttpResponse<String> answered = response.get(30, TimeUnit.SECONDS);
            if (answered.statusCode() == 429)
            {
                refused++;
                assertThat(json(answered).get("code").asString()).isEqualTo("RESOURCE_EXHAUSTED");
                assertThat(json(answered).get("detail").asString()).doesNotContain("Executor", "pool");
            }
            else
            {
                assertThat(answered.statusCode()).isEqualTo(504);
                late++;
            }
        }
        // as many ran as the service has places (4), none waited in its queue, the rest were refused at once
        assertThat(late).isEqualTo(4);
        assertThat(refused).isEqualTo(8);
        assertThat(shopDispatcher().queued()).isZero();
        awaitShopIdle();
        shop.hung().clear();
        shop.cancelled().clear();
    }

    @Test
    void onlyJsonOrNoBodyIsTakenSoACrossSiteFormCannotCall() throws Exception
    {
        for (final String type : List.of("text/plain", "application/x-www-form-urlencoded"))
        {
            final HttpResponse<String> refused = client.send(post("/xio/shop/place", HttpShopApplication.ALICE)
                .setHeader("Content-Type", type).POST(HttpRequest.BodyPublishers.ofString("[\"tea\", 1, []]"))
                .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(415);
        }
        assertThat(client.send(post("/xio/shop/place", HttpShopApplication.ALICE)
            .setHeader("Content-Type", "application/vnd.shop+json; charset=utf-8")
            .POST(HttpRequest.BodyPublishers.ofString("[\"tea\", 1, []]")).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }

    @Test
    void theReflectionIsReachableAsAServiceWhileEnabled() throws Exception
    {
        final HttpResponse<String> services = client.send(post("/xio/xio.reflection/list", HttpShopApplication.ALICE)
            .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(services.statusCode()).isEqualTo(200);
        assertThat(services.body()).contains("shop");
    }

    @Test
    void anOversizedTimeoutIsCutToTheLongestNotAServerError() throws Exception
    {
        assertThat(call("slow", "[1]", "xio-timeout", "999999999d").body()).isEqualTo("\"slept 1\"");
        assertThat(call("slow", "[1]", "xio-timeout", "99999999999999999999d").statusCode()).isEqualTo(400);
    }

    @Test
    void aBodyOverTheLimitIsRefusedWith413WithoutBeingReadWhole() throws Exception
    {
        // Declared: refused on its length, before a byte of it is read.
        assertThat(rawPost("Content-Length: " + (1L << 30) + "\r\n", new byte[0])).startsWith("HTTP/1.1 413");
        // Chunked, no length given: refused once past the limit, while the client could still be sending.
        final byte[] chunk = ("10000\r\n" + "x".repeat(0x10000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        final byte[] twoChunks = new byte[chunk.length * 2];
        System.arraycopy(chunk, 0, twoChunks, 0, chunk.length);
        System.arraycopy(chunk, 0, twoChunks, chunk.length, chunk.length);
        assertThat(rawPost("Transfer-Encoding: chunked\r\n", twoChunks)).startsWith("HTTP/1.1 413");
        assertThat(call("place", "[\"tea\", 1, []]").statusCode()).isEqualTo(200);
    }

    /** The status line of a POST with {@code headers} and {@code body}, the body left unfinished. */
    private String rawPost(final String headers, final byte[] body) throws IOException
    {
        try (Socket socket = new Socket("127.0.0.1", port))
        {
            socket.setSoTimeout(20_000);
            final OutputStream out = socket.getOutputStream();
            out.write(("POST /xio/shop/place HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
                "Authorization: Basic " + Base64.getEncoder().encodeToString("alice:alice-secret".getBytes(
                    StandardCharsets.UTF_8)) + "\r\n" + headers + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            final InputStream in = socket.getInputStream();
            final StringBuilder line = new StringBuilder();
            for (int c = in.read(); c >= 0 && c != '\n'; c = in.read())
            {
                line.append((char)c);
            }
            return line.toString();
        }
    }
}
