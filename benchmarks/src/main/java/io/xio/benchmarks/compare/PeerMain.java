package io.xio.benchmarks.compare;

import io.xio.benchmarks.compare.peers.AeronIpcPeer;
import io.xio.benchmarks.compare.peers.GrpcPeer;
import io.xio.benchmarks.compare.peers.MemoryCopyPeer;
import io.xio.benchmarks.compare.peers.NettyEchoPeer;
import io.xio.benchmarks.compare.peers.RSocketPeer;
import io.xio.benchmarks.compare.peers.RawSocketPeer;
import io.xio.benchmarks.compare.peers.SpinningSocketPeer;
import io.xio.benchmarks.compare.peers.SpringProxyPeer;
import io.xio.benchmarks.compare.peers.XioPeer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Entry point of the JVMs the harness starts: {@code serve PEER VARIANT WORKLOAD} prints {@code ADDRESS ...}, then
 * answers {@code stats} lines on stdin with {@code STATS <allocated bytes>} until stdin closes;
 * {@code client PEER VARIANT ADDRESS WORKLOAD} prints {@code START} when its window opens and one
 * {@link Measurement} line at the end.
 */
public final class PeerMain
{
    static final Map<String, Peer> PEERS = Map.of(
        "xio", new XioPeer(),
        "spring", new SpringProxyPeer(),
        "raw-socket", new RawSocketPeer(),
        "spin-socket", new SpinningSocketPeer(),
        "memcpy", new MemoryCopyPeer(),
        "netty", new NettyEchoPeer(),
        "grpc", new GrpcPeer(),
        "rsocket", new RSocketPeer(),
        "aeron", new AeronIpcPeer());

    private PeerMain()
    {
    }

    static Peer peer(final String name)
    {
        final Peer peer = PEERS.get(name);
        if (peer == null)
        {
            throw new IllegalArgumentException("unknown peer '" + name + "', known: " + PEERS.keySet());
        }
        return peer;
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length == 4 && args[0].equals("serve"))
        {
            serve(peer(args[1]), args[2], Workload.parse(args[3]));
        }
        else if (args.length == 5 && args[0].equals("client"))
        {
            final Measurement measurement = peer(args[1]).run(args[2], args[3], Workload.parse(args[4]));
            System.out.println(measurement.toLine());
            System.out.flush();
            System.exit(0); // a peer's non-daemon threads must not keep the client alive
        }
        else
        {
            throw new IllegalArgumentException("usage: serve PEER VARIANT WORKLOAD | client PEER VARIANT ADDRESS WORKLOAD");
        }
    }

    private static void serve(final Peer peer, final String variant, final Workload workload) throws Exception
    {
        try (Peer.Server server = peer.serve(variant, workload))
        {
            System.out.println("ADDRESS " + server.address());
            System.out.flush();
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine())
            {
                if (line.equals("stats"))
                {
                    System.out.println("STATS " + Allocations.total());
                    System.out.flush();
                }
            }
        }
        System.exit(0);
    }
}
