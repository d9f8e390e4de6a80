package com.example.api;

/** The README's getting-started contract, shared by both sides. */
public interface Greeter
{
    String greet(String name);
}
