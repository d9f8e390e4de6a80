package com.example.client;

import com.example.api.Greeter;
import io.xio.annotation.XioClient;

/** The README's getting-started client, its settings under {@code xio.clients.greeter}. */
@XioClient("greeter")
public interface GreeterClient extends Greeter
{
}
