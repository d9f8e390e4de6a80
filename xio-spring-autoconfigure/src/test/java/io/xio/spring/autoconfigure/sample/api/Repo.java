package io.xio.spring.autoconfigure.sample.api;

/** A generic base interface: its type variable is resolved against the service interface that extends it. */
public interface Repo<T>
{
    void save(String id, T value);

    T load(String id);
}
