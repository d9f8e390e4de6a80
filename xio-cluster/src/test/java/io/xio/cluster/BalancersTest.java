package io.xio.cluster;

import io.xio.engine.XioUri;
import io.xio.engine.support.Rendezvous;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class BalancersTest
{
    private record Fake(Endpoint endpoint, int inFlight) implements LoadBalancer.Candidate
    {
    }

    private static List<Fake> members(final int count)
    {
        final List<Fake> members = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            members.add(new Fake(Endpoint.of("server-" + i, "h" + i,
                List.of(XioUri.parse("tcp://10.0.0." + i + ":7000"))), 0));
        }
        return members;
    }

    @Test
    void roundRobinVisitsEachInTurn()
    {
        final LoadBalancer balancer = LoadBalancer.roundRobin();
        final List<Fake> three = members(3);
        final int[] counts = new int[3];
        for (int i = 0; i < 300; i++)
        {
            counts[balancer.pick(three, 0)]++;
        }
        assertThat(counts).containsExactly(100, 100, 100);
    }

    @Test
    void leastInFlightPicksTheLeastLoadedAndSpreadsTies()
    {
        final LoadBalancer balancer = LoadBalancer.leastInFlight();
        final List<Fake> loaded = List.of(new Fake(members(3).get(0).endpoint(), 5),
            new Fake(members(3).get(1).endpoint(), 1), new Fake(members(3).get(2).endpoint(), 9));
        for (int i = 0; i < 10; i++)
        {
            assertThat(balancer.pick(loaded, 0)).isEqualTo(1);
        }
        final List<Fake> idle = members(3);
        final int[] counts = new int[3];
        for (int i = 0; i < 30; i++)
        {
            counts[balancer.pick(idle, 0)]++;
        }
        assertThat(counts).containsExactly(10, 10, 10);
    }

    @Test
    void rendezvousKeepsKeysTogetherAndMovesOnlyTheLeaversShare()
    {
        final LoadBalancer balancer = LoadBalancer.rendezvous();
        final List<Fake> five = members(5);
        final Map<Long, String> owner = new HashMap<>();
        final Map<String, Integer> share = new HashMap<>();
        for (long key = 1; key <= 10_000; key++)
        {
            final String id = five.get(balancer.pick(five, key)).endpoint().id();
            assertThat(five.get(balancer.pick(five, key)).endpoint().id()).isEqualTo(id); // stable
            owner.put(key, id);
            share.merge(id, 1, Integer::sum);
        }
        assertThat(share.values()).allSatisfy(n -> assertThat(n).isBetween(1_600, 2_400)); // about a fifth each

        final List<Fake> four = new ArrayList<>(five);
        final Fake leaver = four.remove(2);
        int moved = 0;
        for (long key = 1; key <= 10_000; key++)
        {
            final String now = four.get(balancer.pick(four, key)).endpoint().id();
            if (!now.equals(owner.get(key)))
            {
                moved++;
                assertThat(owner.get(key)).isEqualTo(leaver.endpoint().id()); // only the leaver's keys move
            }
        }
        assertThat(moved).isEqualTo(share.get(leaver.endpoint().id()));

        // The same in another order of candidates: the owner does not depend on the list's order.
        final List<Fake> reversed = new ArrayList<>(five);
        java.util.Collections.reverse(reversed);
        for (long key = 1; key <= 1_000; key++)
        {
            assertThat(reversed.get(balancer.pick(reversed, key)).endpoint().id()).isEqualTo(owner.get(key));
        }
    }

    @Test
    void rendezvousWithoutAKeyGoesRoundRobin()
    {
        final LoadBalancer balancer = LoadBalancer.rendezvous();
        final List<Fake> two = members(2);
        assertThat(List.of(balancer.pick(two, 0), balancer.pick(two, 0), balancer.pick(two, 0)))
            .containsExactly(0, 1, 0);
    }

    @Test
    void rendezvousScoresArePinned()
    {
        // Clients of different versions must agree on which server owns a key: changing the hash moves every key.
        assertThat(Rendezvous.hash("server-0")).isEqualTo(-7196858226407681101L);
        assertThat(Rendezvous.score(Rendezvous.hash("server-0"), 42)).isEqualTo(6321654095144348709L);
    }
}
