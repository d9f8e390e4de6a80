package io.xio.cluster;

import io.xio.engine.GoAway;
import io.xio.engine.Session;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionListener;
import io.xio.engine.SessionOptions;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioUri;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Opens each member's session: tries its portals in the {@link ConnectionPlan}'s order until one takes it, follows
 * the session's events (a GOAWAY with portals moves it there, a close has it reopened by {@link Reconnects}), and
 * supersedes an opening still under way when another starts. Runs on the thread that asks for an opening (the
 * resolver's, the client's for a reopen), then on the context threads completing the openings and firing the
 * events; what it reads or writes of a member is under the client's lock.
 */
final class Connector
{
    private static final Logger LOG = LoggerFactory.getLogger(Connector.class);

    /** Opens a session: the engine's {@code openSession}, or a test's. */
    @FunctionalInterface
    interface Opener
    {
        /** The session at {@code uri}; may throw, or fail the future, when no session can be opened there. */
        CompletableFuture<Session> open(String uri, SessionOptions options);
    }

    /**
     * What the connector needs of its client; {@code staleEndpoints} tells the resolver that an endpoint was lost
     * or unreachable ({@link EndpointResolver.Watch#refresh()}).
     */
    record Context(String service, String resource, SessionOptions sessionOptions, ConnectionPlan plan,
        Opener opener, Object lock, NanoClock clock, Membership membership, Reconnects reconnects,
        Runnable staleEndpoints)
    {
    }

    private final String service;
    private final String resource;
    private final SessionOptions sessionOptions;
    private final ConnectionPlan plan;
    private final Opener opener;
    private final Object lock;
    private final NanoClock clock;
    private final Membership membership;
    private final Reconnects reconnects;
    private final Runnable staleEndpoints;

    Connector(final Context context)
    {
        this.service = context.service();
        this.resource = context.resource();
        this.sessionOptions = context.sessionOptions();
        this.plan = context.plan();
        this.opener = context.opener();
        this.lock = context.lock();
        this.clock = context.clock();
        this.membership = context.membership();
        this.reconnects = context.reconnects();
        this.staleEndpoints = context.staleEndpoints();
    }

    /**
     * Opens {@code member}'s session at its own portals, or at {@code migrateTo} (a GOAWAY's): supersedes any opening
     * under way, whose result is then dropped. Takes the lock.
     */
    void open(final Member member, final List<XioUri> migrateTo)
    {
        final long generation;
        final List<ConnectionPlan.Step> steps;
        synchronized (lock)
        {
            if (membership.isClosed() || member.removed)
            {
                return;
            }
            generation = member.beginOpening();
            steps = migrateTo != null ?
                plan.migration(member.portal, member.endpoint.host(), migrateTo, membership::listed) :
                plan.of(member.endpoint.portals(), member.endpoint.host());
        }
        tryStep(member, generation, steps, 0, new ArrayList<>(), false);
    }

    private void tryStep(final Member member, final long generation, final List<ConnectionPlan.Step> steps,
        final int index, final List<String> passed, final boolean triedAny)
    {
        if (membership.isClosed() || member.generation != generation)
        {
            return;
        }
        if (index == steps.size())
        {
            unreachable(member, generation, passed.isEmpty() ? "it has no portal of the transports " +
                plan.transports() : String.join("; ", passed), triedAny);
            return;
        }
        final ConnectionPlan.Step next = steps.get(index);
        if (!next.usable())
        {
            passed.add(next.why());
            tryStep(member, generation, steps, index + 1, passed, triedAny);
            return;
        }
        final CompletableFuture<Session> opening;
        try
        {
            opening = opener.open(next.portal().withResource(resource).toString(),
                sessionOptions.withListener(new MemberListener(member, sessionOptions.listener())));
        }
        catch (final RuntimeException ex)
        {
            passed.add(next.portal().scheme() + ": " + ex.getMessage());
            tryStep(member, generation, steps, index + 1, passed, true);
            return;
        }
        opening.whenComplete((session, failure) ->
        {
            if (failure != null)
            {
                final Throwable cause = ServiceCall.unwrap(failure);
                member.lastRejection = cause instanceof SessionRejectedException rejected ? rejected : null;
                passed.add(next.portal().scheme() + ": " + cause.getMessage());
                tryStep(member, generation, steps, index + 1, passed, true);
                return;
            }
            opened(member, generation, next, passed, session);
        });
    }

    private void opened(final Member member, final long generation, final ConnectionPlan.Step chosen,
        final List<String> passed, final Session session)
    {
        synchronized (lock)
        {
            if (membership.isClosed() || member.removed || member.generation != generation)
            {
                session.close(); // superseded: nothing was sent on it
                return;
            }
            final Session old = member.session;
            if (old != null && old != session)
            {
                membership.drain(member, old, "replaced by a session at " + chosen.portal());
            }
            member.opened(session, chosen.portal(), passed.isEmpty() ? chosen.why() : chosen.why() +
                " (passed over: " + String.join("; ", passed) + ")", clock.nanoTime());
            membership.publish();
        }
    }

    private void unreachable(final Member member, final long generation, final String why, final boolean triedAny)
    {
        final long delay;
        synchronized (lock)
        {
            if (member.generation != generation)
            {
                return; // superseded by another opening
            }
            if (!member.unreachable(why))
            {
                return;
            }
            membership.publish();
            if (!triedAny)
            {
                return; // nothing here can reach it; tried again when the resolver reports it changed
            }
            delay = Reconnects.afterRefusal(member.lastRejection);
        }
        LOG.debug("endpoint {} of service {} unreachable: {}", member.endpoint.id(), service, why);
        staleEndpoints.run(); // it may have moved: a resolver that polls looks again
        reconnects.reopenLater(member, delay);
    }

    /** Follows one member's session: the application's listener first, then the client's part. */
    private final class MemberListener implements SessionListener
    {
        private final Member member;
        private final SessionListener application;

        MemberListener(final Member member, final SessionListener application)
        {
            this.member = member;
            this.application = application;
        }

        @Override
        public void onEvent(final SessionEvent event)
        {
            try
            {
                application.onEvent(event);
            }
            finally
            {
                onMemberEvent(member, event);
            }
        }
    }

    private void onMemberEvent(final Member member, final SessionEvent event)
    {
        final Session session = event.session();
        if (session == null)
        {
            return; // a connection-level error
        }
        if (event.type() == SessionEvent.Type.CLOSED)
        {
            membership.closed(session); // a drained session is gone
        }
        if (session != member.session || member.removed)
        {
            return; // a replaced session's, or a retired member's
        }
        switch (event.type())
        {
            case GOAWAY ->
            {
                final GoAway goAway = session.goAwayReceived();
                synchronized (lock)
                {
                    member.sentAway(goAway);
                    membership.publish();
                }
                if (goAway != null && !goAway.portals().isEmpty())
                {
                    open(member, goAway.portals()); // a live migration: the new session takes new calls
                }
            }
            case CLOSED ->
            {
                final boolean reopen;
                synchronized (lock)
                {
                    reopen = member.session == session && !membership.isClosed();
                    if (reopen)
                    {
                        reconnects.lost(member, event.detail());
                        membership.publish();
                    }
                }
                if (reopen)
                {
                    staleEndpoints.run();
                    reconnects.reopenLater(member, 0); // still listed: it may be back (a restart), or never
                }
            }
            case RECONNECTING, RECONNECTED ->
            {
                synchronized (lock)
                {
                    membership.publish(); // a session with no connection up is passed over while others have one
                }
                if (event.type() == SessionEvent.Type.RECONNECTING)
                {
                    staleEndpoints.run(); // a connection lost: its pod may be gone, and others new
                }
            }
            default ->
            {
            }
        }
    }
}
