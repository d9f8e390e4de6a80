package io.xio.rdma.verbs;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * A queue pair without a device. It records every registration and work request, and checks what hardware
 * would: a local key must cover the bytes it is used for, a remote key must be a live registration of the peer
 * covering them, a SEND needs a receive posted at the peer. Connected to a peer, it also does what the wire
 * would: SENDs land in the peer's posted receives, WRITEs and READs copy between the two ends' memory (both in
 * this JVM), and completions queue up until {@link #poll()} hands them to the link as the context's completion
 * poll would. Test thread only.
 */
final class FakeQueuePair implements QueuePair
{
    private static int nextKey = 0x100;

    enum Kind
    {
        SEND, WRITE, READ
    }

    /** One work request as posted; for a SEND also the header its bytes started with. */
    record Work(Kind kind, int id, long address, int length, int lkey, long remoteAddress, int rkey,
        boolean signaled, int headerPosted, int headerFlags)
    {
        boolean creditOnly()
        {
            return kind == Kind.SEND && length == Wire.HEADER;
        }
    }

    record Completion(int id, int status, int byteLength)
    {
    }

    record ReceiveChain(int firstId, long address, int slotLength, int count, int lkey)
    {
    }

    static final class Region implements Registration
    {
        final long address;
        final int length;
        final int lkey = nextKey++;
        final int rkey = nextKey++;
        final boolean application;
        boolean live = true;

        Region(final long address, final int length, final boolean application)
        {
            this.address = address;
            this.length = length;
            this.application = application;
        }

        boolean covers(final long at, final int bytes)
        {
            return live && at >= address && at + bytes <= address + length;
        }

        @Override
        public int lkey()
        {
            return lkey;
        }

        @Override
        public int rkey()
        {
            return rkey;
        }
    }

    final String name;
    final List<Region> made = new ArrayList<>();
    final List<Region> application = new ArrayList<>();
    final List<ReceiveChain> receiveChains = new ArrayList<>();
    final List<Integer> receivePosts = new ArrayList<>();
    final ArrayDeque<long[]> postedReceives = new ArrayDeque<>(); // id, address, length
    final List<List<Work>> sendChains = new ArrayList<>();
    final List<List<Work>> writeChains = new ArrayList<>();
    final List<Work> reads = new ArrayList<>();
    final List<String> log = new ArrayList<>();
    final ArrayDeque<Completion> completions = new ArrayDeque<>();
    private final Work[] stagedSends = new Work[SendRing.SLOTS];
    private final Work[] stagedWrites = new Work[WriteTracker.MAX_WRITES];
    VerbsLink link;
    FakeQueuePair peer;
    IOException failRegister;
    IOException failSends;
    IOException failRead;
    int readStatus;
    int closes;
    int releases;

    FakeQueuePair(final String name)
    {
        this.name = name;
    }

    static void connect(final FakeQueuePair a, final FakeQueuePair b)
    {
        a.peer = b;
        b.peer = a;
    }

    /** Declares {@code buffer} registered application memory, as {@code XioEngine.registerMemory} would. */
    Region application(final ByteBuffer buffer)
    {
        final Region region = new Region(BufferUtil.address(buffer), buffer.capacity(), true);
        application.add(region);
        return region;
    }

    long liveRegistrations()
    {
        return made.stream().filter(region -> region.live).count();
    }

    List<Work> sends()
    {
        return sendChains.stream().flatMap(List::stream).toList();
    }

    List<Work> writes()
    {
        return writeChains.stream().flatMap(List::stream).toList();
    }

    /** Hands the completions queued so far to the link, then lets it act on them; returns how many. */
    int poll()
    {
        final int count = completions.size();
        for (int i = 0; i < count; i++)
        {
            final Completion completion = completions.poll();
            link.onCompletion(completion.id(), completion.status(), completion.byteLength(), 7);
        }
        if (count > 0)
        {
            link.afterCompletions();
        }
        return count;
    }

    @Override
    public Registration register(final long address, final int length) throws IOException
    {
        if (failRegister != null)
        {
            final IOException failure = failRegister;
            failRegister = null;
            throw failure;
        }
        final Region region = new Region(address, length, false);
        made.add(region);
        return region;
    }

    @Override
    public Registration registered(final long address, final int length)
    {
        return application.stream().filter(region -> region.covers(address, length)).findFirst().orElse(null);
    }

    @Override
    public void deregister(final Registration registration)
    {
        final Region region = (Region)registration;
        if (region.application || !region.live || !made.contains(region))
        {
            throw new AssertionError("deregistered what is not a live registration of this queue pair");
        }
        region.live = false;
    }

    @Override
    public int prepareReceives(final int firstId, final long address, final int slotLength, final int count,
        final int lkey)
    {
        receiveChains.add(new ReceiveChain(firstId, address, slotLength, count, lkey));
        return receiveChains.size() - 1;
    }

    @Override
    public void postReceives(final int chain)
    {
        final ReceiveChain receives = receiveChains.get(chain);
        checkLocal(receives.address(), receives.slotLength() * receives.count(), receives.lkey());
        receivePosts.add(chain);
        for (int i = 0; i < receives.count(); i++)
        {
            postedReceives.add(new long[] {receives.firstId() + i, receives.address() + (long)i * receives.slotLength(),
                receives.slotLength()});
        }
    }

    @Override
    public void send(final int index, final int id, final long address, final int length, final int lkey,
        final boolean signaled)
    {
        final UnsafeBuffer bytes = new UnsafeBuffer(address, length);
        stagedSends[index] = new Work(Kind.SEND, id, address, length, lkey, 0, 0, signaled, bytes.getInt(0),
            bytes.getInt(4));
    }

    @Override
    public void postSends(final int count) throws IOException
    {
        if (failSends != null)
        {
            final IOException failure = failSends;
            failSends = null;
            throw failure;
        }
        final List<Work> chain = List.copyOf(Arrays.asList(stagedSends).subList(0, count));
        sendChains.add(chain);
        log.add("SEND x" + count);
        for (final Work work : chain)
        {
            checkLocal(work.address(), work.length(), work.lkey());
            if (peer != null)
            {
                final long[] receive = peer.postedReceives.poll();
                if (receive == null || work.length() > receive[2])
                {
                    throw new AssertionError(name + " sent while its peer had no receive posted for it");
                }
                copy(work.address(), receive[1], work.length());
                peer.completions.add(new Completion((int)receive[0], 0, work.length()));
            }
            complete(work, 0);
        }
    }

    @Override
    public void write(final int index, final int id, final long address, final int length, final int lkey,
        final long remoteAddress, final int rkey, final boolean signaled)
    {
        stagedWrites[index] = new Work(Kind.WRITE, id, address, length, lkey, remoteAddress, rkey, signaled, 0, 0);
    }

    @Override
    public void postWrites(final int count)
    {
        final List<Work> chain = List.copyOf(Arrays.asList(stagedWrites).subList(0, count));
        writeChains.add(chain);
        log.add("WRITE x" + count);
        for (final Work work : chain)
        {
            checkLocal(work.address(), work.length(), work.lkey());
            if (peer != null)
            {
                peer.checkRemote(work.remoteAddress(), work.length(), work.rkey());
                copy(work.address(), work.remoteAddress(), work.length());
            }
            complete(work, 0);
        }
    }

    @Override
    public void postRead(final int id, final long address, final int length, final int lkey,
        final long remoteAddress, final int rkey) throws IOException
    {
        if (failRead != null)
        {
            final IOException failure = failRead;
            failRead = null;
            throw failure;
        }
        final Work work = new Work(Kind.READ, id, address, length, lkey, remoteAddress, rkey, true, 0, 0);
        reads.add(work);
        log.add("READ");
        checkLocal(address, length, lkey);
        if (peer != null && readStatus == 0)
        {
            peer.checkRemote(remoteAddress, length, rkey);
            copy(remoteAddress, address, length);
        }
        complete(work, readStatus);
    }

    private void complete(final Work work, final int status)
    {
        if (work.signaled())
        {
            completions.add(new Completion(work.id(), status, work.kind() == Kind.READ ? work.length() : 0));
        }
    }

    private void checkLocal(final long address, final int length, final int lkey)
    {
        if (length > 0 && Stream.concat(made.stream(), application.stream())
            .noneMatch(region -> region.lkey == lkey && region.covers(address, length)))
        {
            throw new AssertionError(name + ": local protection error at " + address + " (" + length + " bytes)");
        }
    }

    private void checkRemote(final long address, final int length, final int rkey)
    {
        if (Stream.concat(made.stream(), application.stream())
            .noneMatch(region -> region.rkey == rkey && region.covers(address, length)))
        {
            throw new AssertionError(name + ": remote access error at " + address + " (" + length + " bytes)");
        }
    }

    private static void copy(final long from, final long to, final int length)
    {
        new UnsafeBuffer(to, length).putBytes(0, new UnsafeBuffer(from, length), 0, length);
    }

    @Override
    public void pollCompletions()
    {
        poll();
    }

    @Override
    public void close()
    {
        closes++;
    }

    @Override
    public void release()
    {
        releases++;
    }
}
