package io.xio.spring.autoconfigure.client;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The canonical property prefix of a client name, which the Spring guide and the failure messages name. */
class XioClientNamesTest
{
    @ParameterizedTest
    @CsvSource({"orderService, order-service", "XMLService, xml-service", "s3Client, s3-client",
        "kv, kv", "kv-eu, kv-eu", "OrderService, order-service", "getHTTPResponse, get-http-response",
        "IO, io", "orderV2, order-v2"})
    void aDashGoesWhereAWordStartsAndAcronymsStayWhole(final String name, final String canonical)
    {
        assertThat(XioClientFactoryBean.prefix(name)).isEqualTo("xio.clients." + canonical);
    }
}
