package io.xio.rdma.verbs;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CreditsTest
{
    private final Credits credits = new Credits(ReceiveRing.SLOTS);

    @Test
    void nothingGoesBeforeTheConnectionIsUpThenOnlyTheHello()
    {
        assertThat(credits.available()).isZero();
        credits.established();
        assertThat(credits.available()).isEqualTo(1);
        credits.send();
        assertThat(credits.available()).isZero();
    }

    @Test
    void everyMessageTakesACreditAndTheCountsInThePeersHeadersReturnThem()
    {
        credits.established();
        credits.send();
        credits.header(64, 0);
        assertThat(credits.available()).isEqualTo(63);
        for (int i = 0; i < 63; i++)
        {
            credits.send();
        }
        assertThat(credits.available()).isZero();
        credits.header(80, 0);
        assertThat(credits.available()).isEqualTo(16);
        credits.header(70, 0); // an older count, overtaken
        assertThat(credits.available()).isEqualTo(16);
    }

    @Test
    void theCountsMayWrapAround()
    {
        credits.established();
        credits.header(Integer.MAX_VALUE, 0);
        credits.header(Integer.MIN_VALUE + 9, 0);
        assertThat(credits.available()).isEqualTo(Integer.MIN_VALUE + 9);
        assertThat(credits.available() - Integer.MAX_VALUE).isEqualTo(10);
    }

    @Test
    void messagesAskForCreditWhenTheyAreAmongThePeersLastThree()
    {
        credits.established();
        credits.send();
        credits.header(5, 0);
        assertThat(credits.runningLow()).isFalse(); // 4 left
        credits.send();
        assertThat(credits.runningLow()).isFalse(); // 3
        credits.send();
        assertThat(credits.runningLow()).isTrue(); // 2
    }

    @Test
    void aCreditOnlyMessageIsOwedOnceHalfTheRingWasRepostedUnannounced()
    {
        credits.posted(64);
        assertThat(credits.send()).isEqualTo(64);
        assertThat(credits.owesCredit()).isFalse();
        credits.posted(ReceiveRing.BATCH);
        assertThat(credits.owesCredit()).isFalse();
        credits.posted(ReceiveRing.BATCH);
        assertThat(credits.owesCredit()).isTrue();
        assertThat(credits.send()).isEqualTo(96);
        assertThat(credits.owesCredit()).isFalse();
    }

    @Test
    void aPeerThatAsksForCreditGetsAnyNewReceivesAnnouncedAtOnce()
    {
        credits.posted(64);
        credits.send();
        credits.header(1, Wire.FLAG_WANT_CREDIT);
        assertThat(credits.owesCredit()).isFalse(); // nothing new to announce
        credits.posted(ReceiveRing.BATCH);
        assertThat(credits.owesCredit()).isTrue();
        credits.send();
        credits.posted(ReceiveRing.BATCH);
        assertThat(credits.owesCredit()).isFalse(); // the ask was answered
    }

    @Test
    void theHelloSetsTheMessageSizeUpToOurOwnSlot()
    {
        assertThat(credits.peerSlot()).isEqualTo(Wire.HELLO_LENGTH);
        assertThat(credits.hello(4096)).isEqualTo(4096);
        assertThat(credits.hello(1 << 20)).isEqualTo(SendRing.SLOT);
        assertThat(credits.peerSlot()).isEqualTo(SendRing.SLOT);
    }
}
