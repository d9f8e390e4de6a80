package io.xio.cli.server;

import io.xio.annotation.XioService;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The server side of {@link Inventory}, exported as {@code inventory}. */
@XioService("inventory")
public class InventoryService implements Inventory
{
    private final Map<String, Item> items = new ConcurrentHashMap<>();

    @Override
    public Item put(final Item item)
    {
        items.put(item.sku(), item);
        return item;
    }

    @Override
    public Item get(final String sku)
    {
        return items.get(sku);
    }

    @Override
    public Item take(final String sku, final int count)
    {
        return items.computeIfPresent(sku, (key, had) -> new Item(sku, had.count() - count, had.colour(), had.tags()));
    }

    @Override
    public int add(final int a, final int b)
    {
        return a + b;
    }

    @Override
    public long add(final long a, final long b, final long c)
    {
        return a + b + c;
    }

    @Override
    public Map<String, Integer> counts(final List<String> skus)
    {
        final Map<String, Integer> counts = new LinkedHashMap<>();
        skus.forEach(sku -> counts.put(sku, items.containsKey(sku) ? items.get(sku).count() : 0));
        return counts;
    }

    @Override
    public Category tree()
    {
        return new Category("all", List.of(new Category("tools", List.of())));
    }

    @Override
    public void clear()
    {
        items.clear();
    }

    @Override
    public void restock(final String sku)
    {
        items.merge(sku, new Item(sku, 1, Colour.GREEN, List.of()),
            (had, more) -> new Item(sku, had.count() + 1, had.colour(), had.tags()));
    }

    @Override
    public String fail(final String why)
    {
        throw new IllegalStateException(why);
    }
}
