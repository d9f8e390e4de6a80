package io.xio.benchmarks.spring.client;

import io.xio.annotation.XioClient;
import io.xio.benchmarks.spring.api.Echo;

/** The benchmark's client proxy. */
@XioClient("echo")
public interface EchoClient extends Echo
{
}
