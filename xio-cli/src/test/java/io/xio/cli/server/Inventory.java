package io.xio.cli.server;

import io.xio.annotation.XioMethod;

import java.util.List;
import java.util.Map;

/**
 * The service the command line is tried on: records, enums, lists, maps, a type that contains itself, an idempotent
 * and an exactly-once method.
 */
public interface Inventory
{
    enum Colour
    {
        RED, GREEN
    }

    record Item(String sku, int count, Colour colour, List<String> tags)
    {
    }

    /** Contains itself: its schema refers to its own definition. */
    record Category(String name, List<Category> children)
    {
    }

    Item put(Item item);

    @XioMethod(idempotent = true)
    Item get(String sku);

    /** Takes {@code count} of {@code sku} out of stock, once per call: its server keeps an execution ledger. */
    @XioMethod(exactlyOnce = true)
    Item take(String sku, int count);

    int add(int a, int b);

    long add(long a, long b, long c);

    Map<String, Integer> counts(List<String> skus);

    Category tree();

    void clear();

    /** One more of {@code sku}; nobody waits for it. */
    @XioMethod(oneWay = true)
    void restock(String sku);

    /** Fails with a message its caller may read. */
    String fail(String why) throws IllegalStateException;
}
