package io.xio.spring.autoconfigure.http;

import io.xio.spring.autoconfigure.http.shop.ShopService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** HTTP/JSON calls on WebFlux (Reactor Netty). */
@SpringBootTest(classes = HttpShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "spring.main.web-application-type=reactive")
class XioHttpWebFluxTest extends XioHttpContract
{
    @LocalServerPort
    private int port;

    @Autowired
    private ShopService shop;

    @Test
    void theOpenApiDocumentIsServedBehindTheWebChain() throws Exception
    {
        final HttpClient client = HttpClient.newHttpClient();
        final HttpRequest.Builder get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port +
            "/xio/openapi.json")).timeout(Duration.ofSeconds(30)).GET();

        final HttpResponse<String> anonymous = client.send(get.build(), HttpResponse.BodyHandlers.ofString());
        final HttpResponse<String> alice = client.send(get.header("Authorization", "Basic " + Base64.getEncoder()
            .encodeToString("alice:alice-secret".getBytes(StandardCharsets.UTF_8))).build(),
            HttpResponse.BodyHandlers.ofString());

        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(alice.statusCode()).isEqualTo(200);
        final JsonNode document = new JsonMapper().readTree(alice.body());
        assertThat(document.get("openapi").asString()).startsWith("3.1.");
        assertThat(document.get("paths").has("/xio/catalog/get(String)")).isTrue();
        assertThat(document.get("paths").has("/xio/catalog/checksum(byte%5B%5D)")).isTrue();
    }

    @Test
    void aClientThatLeavesBeforeTheAnswerCancelsTheFutureTheMethodReturned() throws Exception
    {
        try (Socket socket = new Socket("127.0.0.1", port))
        {
            final OutputStream out = socket.getOutputStream();
            out.write(("POST /xio/shop/hang HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n" +
                "Authorization: Basic " + Base64.getEncoder().encodeToString("alice:alice-secret".getBytes(
                    StandardCharsets.UTF_8)) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(shop.hung().poll(20, TimeUnit.SECONDS)).isEqualTo("hang");
            final InputStream in = socket.getInputStream();
            assertThat(in.available()).isZero(); // no answer yet
        }
        assertThat(shop.cancelled().poll(20, TimeUnit.SECONDS)).isEqualTo("hang");
    }
}
