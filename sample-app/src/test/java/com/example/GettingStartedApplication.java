package com.example;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The README's getting-started application: xio finds the service and the client in its packages. */
@SpringBootApplication
public class GettingStartedApplication
{
}
