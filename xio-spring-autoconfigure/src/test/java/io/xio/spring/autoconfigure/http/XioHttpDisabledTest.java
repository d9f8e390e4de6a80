package io.xio.spring.autoconfigure.http;

import io.xio.spring.http.XioHttpCalls;
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

/** Without {@code xio.http.enabled}, the web server has no xio route and the context no HTTP bean. */
@SpringBootTest(classes = HttpShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"spring.main.web-application-type=servlet", "xio.contexts=1", "xio.idle.busy-poll=0s",
        "xio.portals[0].uri=tcp://127.0.0.1:0", "spring.main.banner-mode=off"})
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioHttpDisabledTest
{
    @LocalServerPort
    private int port;

    @Autowired
    private ApplicationContext context;

    @Test
    void offByDefaultTheRouteIs404AndNoBeanIsMade() throws Exception
    {
        assertThat(context.getBeanNamesForType(XioHttpCalls.class)).isEmpty();
        assertThat(context.containsBean("xioHttpRoutes")).isFalse();
        final HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/xio/shop/secret"))
            .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                "alice:alice-secret".getBytes(StandardCharsets.UTF_8)))
            .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(404);
    }
}
