package io.xio.spring.test.app;

/** The API the test service exports and the test client calls. */
public interface Greeter
{
    String greet(String name);
}
