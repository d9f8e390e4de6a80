package io.xio.spring.autoconfigure.sample.errors.client;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.errors.api.Accounts;

/** The client side of {@link Accounts}, configured under {@code xio.clients.accounts}. */
@XioClient("accounts")
public interface AccountsClient extends Accounts
{
}
