package io.xio.spring.autoconfigure.http.shop;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioService;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.zip.CRC32;

/** Three items. */
@XioService("catalog")
public class CatalogService implements Catalog
{
    private static final List<Item> ITEMS = List.of(new Item("b-1", "Dune", 3, List.of("sf")),
        new Item("b-2", "Dune Messiah", 0, List.of("sf", "sequel")), new Item("b-3", "Emma", 5, List.of()));

    @Override
    public Item get(final String sku)
    {
        return ITEMS.stream().filter(item -> item.sku().equals(sku)).findFirst()
            .orElseThrow(() -> new NoSuchElementException("no item " + sku));
    }

    @Override
    public List<Item> find(final String text)
    {
        return find(text, Integer.MAX_VALUE);
    }

    @Override
    public List<Item> find(final String text, final int limit)
    {
        return ITEMS.stream().filter(item -> item.name().contains(text)).limit(limit).toList();
    }

    @Override
    public long checksum(final byte[] data)
    {
        final CRC32 crc = new CRC32();
        crc.update(data);
        return crc.getValue();
    }

    @Override
    public long checksum(final String text)
    {
        return -checksum(text.getBytes(StandardCharsets.UTF_8)); // told apart from the bytes' overload
    }

    @Override
    public String greet(final String name, final String title)
    {
        return "hello " + (title == null ? "" : title + " ") + name;
    }

    @XioExceptionHandler
    XioError notFound(final NoSuchElementException failure)
    {
        return XioError.of(XioErrorCode.NOT_FOUND, failure.getMessage());
    }
}
