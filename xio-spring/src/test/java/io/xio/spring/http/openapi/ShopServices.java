package io.xio.spring.http.openapi;

import io.xio.annotation.XioMethod;
import io.xio.annotation.XioService;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.reflection.XioReflection.ServiceDescription;
import io.xio.spring.reflection.XioReflectionService;
import io.xio.spring.service.ExactlyOnceCalls;
import io.xio.spring.service.ServiceDispatcher;
import org.mockito.Mockito;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Services as an application writes them, for the OpenAPI tests: records, nested and recursive types, generics,
 * enums, optional values, collections, maps, bytes, overloads, void, one-way, Mono and Flux, streams the client
 * sends, and two services with types of one simple name.
 */
final class ShopServices
{
    static final String CATALOG = "shop.catalog";
    static final String BILLING = "billing";

    private ShopServices()
    {
    }

    /** The descriptions the reflection gives of both services. */
    static List<ServiceDescription> descriptions()
    {
        final JacksonXioCodec codec = new JacksonXioCodec(new JsonMapper());
        final ExactlyOnceCalls.Factory ledger = service -> Mockito.mock(ExactlyOnceCalls.class);
        final ServiceDispatcher.Settings settings = new ServiceDispatcher.Settings(null, 0, 0, null, codec, null,
            null, ledger);
        final List<ServiceDispatcher> services = List.of(
            new ServiceDispatcher(CATALOG, Catalog.class, new Object(), codec, XioService.Dispatch.WORKER,
                Runnable::run, XioInstrumentation.NONE, settings),
            new ServiceDispatcher(BILLING, Billing.class, new Object(), codec, XioService.Dispatch.WORKER,
                Runnable::run, XioInstrumentation.NONE, settings));
        return new XioReflectionService(() -> services, codec).descriptions();
    }

    /** What a shop sells. */
    enum Kind
    {
        BOOK, MUSIC, GAME
    }

    /** A product of the catalog. */
    record Product(String sku, String name, BigDecimal price, Kind kind, List<String> tags, Optional<String> note,
        Instant added, byte[] picture, int stock)
    {
    }

    /** A category and its children: a type that contains itself. */
    record Category(String name, List<Category> children)
    {
    }

    /** A page of anything. */
    record Page<T>(List<T> items, int number, long total)
    {
    }

    /** A search. */
    record Query(String text, Set<Kind> kinds, Map<String, List<Integer>> ranges)
    {
    }

    /** The catalog's state. */
    record Status(boolean open, long products)
    {
    }

    /** An order, answered by a receipt. */
    record Order(String sku, int quantity, Address shipTo)
    {
        /** Where an order goes: a record inside a record. */
        record Address(String street, String city, Optional<String> zip)
        {
        }
    }

    /** What an order gave. */
    record Receipt(UUID id, BigDecimal total)
    {
    }

    /** The catalog service. */
    interface Catalog
    {
        Product find(String sku);

        Product find(String sku, int revision);

        List<Product> search(Query query);

        Map<String, Integer> stock(Set<String> skus);

        Optional<Product> lookup(UUID id);

        Page<Product> page(int number, int size);

        Category tree(String root);

        void touch(String sku);

        @XioMethod(oneWay = true)
        void log(String line);

        Mono<Product> later(String sku);

        Mono<Void> refresh(String sku);

        java.util.concurrent.CompletableFuture<Void> reindex();

        Flux<Product> watch(Kind kind);

        Mono<Integer> importAll(Flux<Product> products);

        String checksum(byte[] image);

        ByteBuffer thumbnail(String sku, int size);

        @XioMethod(idempotent = true, timeout = "2s")
        Status status();

        @XioMethod(exactlyOnce = true)
        Receipt order(Order order);

        @XioMethod(name = "price-of")
        BigDecimal price(String sku);
    }

    /** The billing service: its Product is another type of the same simple name. */
    interface Billing
    {
        Invoice invoice(Product product);

        ShopServices.Product catalogProduct(String sku);

        /** A billed product, not the catalog's. */
        record Product(String id, long cents)
        {
        }

        /** An invoice of one product. */
        record Invoice(Product product, Kind kind)
        {
        }
    }
}
