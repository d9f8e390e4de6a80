package io.xio.rdma.verbs;

/**
 * Flow control of one queue pair, both ways. A message may only go when the peer has a receive posted for it,
 * and fit it: the peer grants what its headers say it posted in all, every message sent takes one, and its
 * hello says how large its receive slots are. One credit is kept
 * back for a header-only credit message, owed when half our receive ring was re-posted unannounced or when the
 * peer said it is about to run out. Plain counters, no verbs. Owner context thread only.
 */
final class Credits
{
    private final int owedAt;
    private int granted = 1; // the peer posts receives before connecting: at least the hello fits
    private int sent;
    private int posted;
    private int announced;
    private boolean peerWantsCredit;
    private boolean established;
    private int peerSlot = Wire.HELLO_LENGTH; // until the hello says how large the peer's receive slots are

    /** @param receiveSlots how many receives this end keeps posted */
    Credits(final int receiveSlots)
    {
        this.owedAt = receiveSlots / 2;
    }

    void established()
    {
        established = true;
    }

    boolean isEstablished()
    {
        return established;
    }

    /** Messages the peer has room for now; none before the connection is up. */
    int available()
    {
        return established ? granted - sent : 0;
    }

    /** Whether a message should ask the peer to return credits soon: it is one of the last few. */
    boolean runningLow()
    {
        return available() <= 2;
    }

    /** This end posted {@code count} more receives. */
    void posted(final int count)
    {
        posted += count;
    }

    /** A header from the peer: how many receives it has posted in all (the count wraps), and its flags. */
    void header(final int peerPosted, final int flags)
    {
        if (peerPosted - granted > 0)
        {
            granted = peerPosted;
        }
        if ((flags & Wire.FLAG_WANT_CREDIT) != 0)
        {
            peerWantsCredit = true;
        }
    }

    /**
     * The peer's hello announced the size of its receive slots.
     *
     * @return the size messages to it may have, at most ours; none fits unless it is above {@link Wire#HEADER}
     */
    int hello(final int slotSize)
    {
        peerSlot = Math.min(SendRing.SLOT, slotSize);
        return peerSlot;
    }

    /** How large a message to the peer may be. */
    int peerSlot()
    {
        return peerSlot;
    }

    /** Whether the peer should hear of our new receives in a message of their own. */
    boolean owesCredit()
    {
        final int unannounced = posted - announced;
        return unannounced > 0 && (peerWantsCredit || unannounced >= owedAt);
    }

    /**
     * One message goes: it takes a credit and announces every receive posted so far.
     *
     * @return the count of posted receives for its header
     */
    int send()
    {
        announced = posted;
        peerWantsCredit = false;
        sent++;
        return posted;
    }
}
