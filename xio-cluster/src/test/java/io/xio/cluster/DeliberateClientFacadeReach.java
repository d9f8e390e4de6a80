package io.xio.cluster;

/** A part that reaches through the service client's facade, as the architecture rule forbids: the rule's own test. */
final class DeliberateClientFacadeReach
{
    private DeliberateClientFacadeReach()
    {
    }

    static String reach(final ServiceClientImpl client)
    {
        return client.describe();
    }
}
