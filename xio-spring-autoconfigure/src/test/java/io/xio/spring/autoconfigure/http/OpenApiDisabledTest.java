package io.xio.spring.autoconfigure.http;

import io.xio.spring.http.openapi.OpenApiDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** With {@code xio.http.openapi.enabled=false} the routes are served and the document is not. */
@SpringBootTest(classes = HttpShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"spring.main.web-application-type=servlet", "xio.contexts=1", "xio.idle.busy-poll=0s",
        "xio.portals[0].uri=tcp://127.0.0.1:0", "xio.http.enabled=true", "xio.http.openapi.enabled=false",
        "spring.main.banner-mode=off"})
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenApiDisabledTest
{
    @LocalServerPort
    private int port;

    @Autowired
    private ApplicationContext context;

    @Test
    void turnedOffTheDocumentIs404AndNoBeanIsMade() throws Exception
    {
        assertThat(context.getBeanNamesForType(OpenApiDocument.class)).isEmpty();
        final HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/xio/openapi.json"))
            .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                "alice:alice-secret".getBytes(StandardCharsets.UTF_8)))
            .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(404);
    }
}
