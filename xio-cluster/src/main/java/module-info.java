/**
 * The xio cluster client: one client over every endpoint of a logical service, built on the engine's API
 * ({@code io.xio.engine} and {@code io.xio.engine.support}) and nothing below it; the architecture test checks this
 * on the class path, where the module system does not.
 */
module io.xio.cluster
{
    requires transitive io.xio.engine;
    requires org.agrona.core; // NanoClock: the client's timers
    requires org.slf4j;

    exports io.xio.cluster;
}
