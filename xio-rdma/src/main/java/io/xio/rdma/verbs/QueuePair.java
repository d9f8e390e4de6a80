package io.xio.rdma.verbs;

import java.io.IOException;

/**
 * The verbs one {@link VerbsLink} uses: memory registrations and the work requests of one RC queue pair, in
 * primitives only, so that the link's rings, credits, rendezvous and writes run against a fake in unit tests
 * and against DiSNI ({@link DisniQueuePair}) in production. Work request ids are the low 32 bits that
 * {@link WorkId} lays out; an implementation adds whatever it needs to route completions back to the link,
 * which it reports through {@link VerbsLink#onCompletion} and {@link VerbsLink#afterCompletions}.
 *
 * <p>SENDs and RDMA WRITEs are set one by one, then posted as one chain of the first {@code count} set. Owner
 * context thread only.
 */
interface QueuePair
{
    /** A registered memory region: the keys a work request (lkey) or the peer (rkey) uses to reach it. */
    interface Registration
    {
        int lkey();

        int rkey();
    }

    /** Registers {@code [address, address + length)} for local use and for the peer's one-sided access. */
    Registration register(long address, int length) throws IOException;

    /**
     * The registration covering {@code [address, address + length)} when it lies in application memory
     * registered once through {@code XioEngine.registerMemory}, or null. Never deregistered by the caller.
     */
    Registration registered(long address, int length) throws IOException;

    /** Gives back a registration {@link #register} made. */
    void deregister(Registration registration);

    /**
     * Builds, once, a chain of {@code count} receives into consecutive slots of {@code slotLength} bytes from
     * {@code address} on, the i-th with id {@code firstId + i}; returns its handle for {@link #postReceives}.
     */
    int prepareReceives(int firstId, long address, int slotLength, int count, int lkey) throws IOException;

    /** Posts a chain {@link #prepareReceives} built. */
    void postReceives(int chain) throws IOException;

    /** Sets the {@code index}-th SEND of the next chain. */
    void send(int index, int id, long address, int length, int lkey, boolean signaled);

    /** Posts the first {@code count} SENDs set, as one chain. */
    void postSends(int count) throws IOException;

    /** Sets the {@code index}-th RDMA WRITE of the next chain. */
    void write(int index, int id, long address, int length, int lkey, long remoteAddress, int rkey, boolean signaled);

    /** Posts the first {@code count} RDMA WRITEs set, as one chain. */
    void postWrites(int count) throws IOException;

    /** Posts one signalled RDMA READ of the peer's {@code [remoteAddress, + length)} into local memory. */
    void postRead(int id, long address, int length, int lkey, long remoteAddress, int rkey) throws IOException;

    /** Polls the completion queue this queue pair reports to, so completions already there reach the link. */
    void pollCompletions();

    /** Ends the connection and destroys the queue pair: nothing posted touches memory afterwards. */
    void close();

    /** Frees what posting needed and stops routing completions; last, after every deregistration. */
    void release();
}
