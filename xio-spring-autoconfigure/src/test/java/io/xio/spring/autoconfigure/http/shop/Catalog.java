package io.xio.spring.autoconfigure.http.shop;

import java.util.List;

/** The service the generated client calls: records, lists, a mapped error, overloads and an optional parameter. */
public interface Catalog
{
    /** An item of the catalog. */
    record Item(String sku, String name, int stock, List<String> tags)
    {
    }

    /** The item of {@code sku}; {@code NOT_FOUND} when there is none. */
    Item get(String sku);

    /** The items whose name contains {@code text}. */
    List<Item> find(String text);

    /** At most {@code limit} of them. */
    List<Item> find(String text, int limit);

    /** A checksum of the bytes (its wire name, {@code checksum(byte[])}, is percent-encoded in a path). */
    long checksum(byte[] data);

    /** A checksum of the text's UTF-8 bytes. */
    long checksum(String text);

    /** A greeting; {@code title} may be left out (null). */
    String greet(String name, String title);
}
