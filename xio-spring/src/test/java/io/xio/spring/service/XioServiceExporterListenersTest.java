package io.xio.spring.service;

import io.xio.engine.XioEngine;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.error.XioErrorDisclosure;
import org.junit.jupiter.api.Test;
import org.springframework.context.support.GenericApplicationContext;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The exporter's listeners and its server settings, without Spring Boot: an exporter of no service. */
class XioServiceExporterListenersTest
{
    @Test
    void aListenerThatThrowsWhileTheServerStopsKeepsNeitherTheOthersNorTheCallbackFromRunning() throws Exception
    {
        try (XioEngine engine = XioEngine.builder().name("exporter-stopping").contexts(1).build();
            GenericApplicationContext context = new GenericApplicationContext())
        {
            context.refresh();
            final XioServiceExporter exporter = new XioServiceExporter(context, engine,
                new JacksonXioCodec(new JsonMapper()), server(Map.of()), XioServiceExporter.Settings.DEFAULTS);
            final AtomicInteger told = new AtomicInteger();
            final XioExportListener throwing = new XioExportListener()
            {
                @Override
                public void stopping()
                {
                    told.incrementAndGet();
                    throw new IllegalStateException("registry unreachable");
                }
            };
            final XioExportListener counting = new XioExportListener()
            {
                @Override
                public void stopping()
                {
                    told.incrementAndGet();
                }
            };
            exporter.addListeners(List.of(throwing, counting, throwing, counting));
            exporter.start();
            final CountDownLatch stopped = new CountDownLatch(1);

            exporter.stop(stopped::countDown);

            assertThat(stopped.await(10, TimeUnit.SECONDS)).as("the stop's callback ran").isTrue();
            assertThat(told).as("every listener was told").hasValue(4);
            assertThat(exporter.isRunning()).isFalse();
            exporter.destroy();
        }
    }

    @Test
    void boundsOfServicesThatAreNotExportedFailNamingTheFirstInTheOrderGiven() throws Exception
    {
        final Map<String, XioServiceExporter.ServiceBounds> services = new LinkedHashMap<>();
        for (final String name : List.of("zeta", "alpha", "mu", "beta", "omega", "kappa"))
        {
            services.put(name, new XioServiceExporter.ServiceBounds(1, null));
        }
        assertThat(server(services).services().keySet()).containsExactlyElementsOf(services.keySet());
        try (XioEngine engine = XioEngine.builder().name("exporter-unknown").contexts(1).build();
            GenericApplicationContext context = new GenericApplicationContext())
        {
            context.refresh();
            final XioServiceExporter exporter = new XioServiceExporter(context, engine,
                new JacksonXioCodec(new JsonMapper()), server(services), XioServiceExporter.Settings.DEFAULTS);

            assertThatThrownBy(exporter::start).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("xio.server.services.zeta names no exported service");
            exporter.destroy();
        }
    }

    private static XioServiceExporter.Server server(final Map<String, XioServiceExporter.ServiceBounds> services)
    {
        return new XioServiceExporter.Server(List.of(), XioServiceExporter.Redirect.NONE, services,
            "xio.server.services", XioErrorDisclosure.HIDDEN, Duration.ofMillis(200));
    }
}
