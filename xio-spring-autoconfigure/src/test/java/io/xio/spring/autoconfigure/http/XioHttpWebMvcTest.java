package io.xio.spring.autoconfigure.http;

import org.springframework.boot.test.context.SpringBootTest;

/** HTTP/JSON calls on Spring MVC (Tomcat). */
@SpringBootTest(classes = HttpShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "spring.main.web-application-type=servlet")
class XioHttpWebMvcTest extends XioHttpContract
{
}
