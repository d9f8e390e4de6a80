package io.xio.engine.transport.shm;

import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;

/**
 * Local-user access control of the {@code shm} transport ({@link ShmTransport}): who may use a portal, and whose
 * portal a client reaches. A portal's directory is created owner-only (0700; 0750 and the socket 0660 with a
 * configured group), so no other user can reach the socket, not even between its bind and its chmod. The client
 * first checks whose portal it reached: the directory (not followed if it is a link) and the process listening on
 * the socket ({@code SO_PEERCRED}) must be its own user or the configured portal owner, or another local user that
 * took the name before the real portal bound it (or after it closed) would be handed the client's rings, credentials
 * included. For a portal of another user (group mode) the ring must be readable by the group, and a group-readable
 * file in a directory everyone can list could be opened by any member of the group before the server took it; so it
 * goes into a directory of the client's own, {@code xio-<name>-<pid>-<n>-<nonce>.d}, that the group may enter but not
 * list (0710), under a name of 128 random bits that only the socket carries, in the client's own configured group
 * (never whatever group the portal's directory shows). The portal admits only peers whose process runs as its own
 * user or with the configured group as its effective group: it reads the peer's credentials from the socket ({@code
 * SO_PEERCRED}, through {@code jdk.net.ExtendedSocketOptions}, no native code; a runtime without it cannot bind) before
 * reading anything else, and closes any other peer at once ({@code PEER_CREDENTIALS}). A local user can still keep a
 * portal from binding by creating its directory first (the bind fails naming that user): that is a denial of service,
 * never a way in. Called by its transport on the context thread that listens, accepts or connects; the one thing it
 * learns (this process's user, at first use) is published safely to the others. Thread-safe.
 */
final class ShmAccess
{
    private static final java.security.SecureRandom SECRET_NAMES = new java.security.SecureRandom();

    private final Path directory;
    /**
     * The group whose members a portal admits besides its own user, and which a client shares its rings with when
     * it connects to a portal of another user; null for none.
     */
    private final String group;
    /** The user whose portals a client connects to besides its own; null for its own only. */
    private final String portalOwner;
    /** This process's user as the file system names it; found at first use. */
    private volatile UserPrincipal me;

    /**
     * @param directory where sockets and ring files live, absolute and normalized
     * @param group the group a portal admits and a client shares its rings with; null for none
     * @param portalOwner the user whose portals a client connects to besides its own; null for none
     */
    ShmAccess(final Path directory, final String group, final String portalOwner)
    {
        this.directory = directory;
        this.group = group;
        this.portalOwner = portalOwner;
    }

    /** Whom a portal admits: its own user, and processes whose effective group is its group (if it has one). */
    record Admission(UserPrincipal owner, GroupPrincipal group)
    {
        /** The peer's user if it is admitted; throws {@link RefusedPeer} if it is not. */
        UserPrincipal admit(final SocketChannel channel) throws IOException
        {
            final UnixDomainPrincipal peer = peerCredentials(channel);
            if (peer.user().equals(owner) || group != null && group.equals(peer.group()))
            {
                return peer.user();
            }
            throw new RefusedPeer(peer.user().getName() + ":" + peer.group().getName());
        }

        String describe()
        {
            return "user " + owner.getName() + (group != null ? " and group " + group.getName() : "");
        }
    }

    /**
     * The credentials of the process at the other end of {@code channel}, from the kernel. A runtime without the
     * {@code jdk.net} module (a jlink image without it) fails here as an {@link IOException}, never an error that
     * would end the context thread.
     */
    static UnixDomainPrincipal peerCredentials(final SocketChannel channel) throws IOException
    {
        try
        {
            return channel.getOption(ExtendedSocketOptions.SO_PEERCRED);
        }
        catch (final LinkageError | UnsupportedOperationException ex)
        {
            throw new IOException("cannot read the peer's credentials (SO_PEERCRED): " + ex, ex);
        }
    }

    /**
     * Fails unless this runtime reads a Unix-domain peer's credentials: a portal that could not check its peers'
     * users must not bind, and finding out at the first peer would be too late.
     */
    static void checkPeerCredentials() throws IOException
    {
        boolean supported;
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX))
        {
            supported = probe.supportedOptions().contains(ExtendedSocketOptions.SO_PEERCRED);
        }
        catch (final LinkageError | UnsupportedOperationException ex)
        {
            supported = false;
        }
        if (!supported)
        {
            throw new IOException("this Java runtime cannot read a Unix-domain peer's credentials (SO_PEERCRED " +
                "of the jdk.net module, on Linux and macOS), without which a portal cannot tell who connects");
        }
    }

    /** A peer whose user the portal does not admit; the message names it, as {@code user:group}. */
    static final class RefusedPeer extends IOException
    {
        private static final long serialVersionUID = 1L;

        RefusedPeer(final String who)
        {
            super(who, null);
        }
    }

    /**
     * Creates the portal's directory, 0700, or takes over the one a dead portal of this user left: it must be a
     * directory, not a link, and ours, or another user could swap the socket in it. Its owner, this user.
     */
    UserPrincipal ownDirectory(final Path home) throws IOException
    {
        try
        {
            Files.createDirectory(home, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                "rwx------")));
        }
        catch (final java.nio.file.FileAlreadyExistsException ex)
        {
            if (!Files.isDirectory(home, LinkOption.NOFOLLOW_LINKS))
            {
                throw new IOException(home + " exists and is not a directory (a link or a file of " +
                    Files.getOwner(home, LinkOption.NOFOLLOW_LINKS).getName() + ")");
            }
        }
        final UserPrincipal owner = Files.getOwner(home, LinkOption.NOFOLLOW_LINKS);
        final UserPrincipal me = ownUser();
        if (!owner.equals(me))
        {
            throw new IOException(home + " belongs to user " + owner.getName() + ", not to " + me.getName() +
                " (another user took this portal's name: it must remove the directory, or pick another name)");
        }
        return owner;
    }

    /** Opens the portal's directory to the configured group (0750), or keeps it 0700; whom the portal admits. */
    Admission restrict(final Path home, final UserPrincipal owner) throws IOException
    {
        final GroupPrincipal admitted = group == null ? null :
            home.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(group);
        final PosixFileAttributeView view = Files.getFileAttributeView(home, PosixFileAttributeView.class,
            LinkOption.NOFOLLOW_LINKS);
        if (admitted != null)
        {
            view.setGroup(admitted);
        }
        view.setPermissions(PosixFilePermissions.fromString(admitted != null ? "rwxr-x---" : "rwx------"));
        return new Admission(owner, admitted);
    }

    /** The user this process runs as, as the file system names it (the owner of a file it creates). */
    UserPrincipal ownUser() throws IOException
    {
        final UserPrincipal known = me;
        if (known != null)
        {
            return known;
        }
        final Path probe = Files.createTempFile(directory, "xio-owner-", ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try
        {
            me = Files.getOwner(probe, LinkOption.NOFOLLOW_LINKS);
            return me;
        }
        finally
        {
            Files.deleteIfExists(probe);
        }
    }

    /**
     * The owner of the portal directory {@code home} if this client connects to that user's portals (its own, or the
     * configured portal owner); the directory must be one, not a link to one.
     */
    UserPrincipal checkPortal(final Path home) throws IOException
    {
        final PosixFileAttributes portal;
        try
        {
            portal = Files.readAttributes(home, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }
        catch (final java.nio.file.NoSuchFileException ex)
        {
            throw new IOException("no shm portal there (" + home + " does not exist)", ex);
        }
        if (!portal.isDirectory())
        {
            throw new IOException(home + " is not a portal's directory (a link or a file of " +
                portal.owner().getName() + ")");
        }
        final UserPrincipal own = ownUser();
        if (portal.owner().equals(own) || portalOwner != null && portal.owner().equals(
            home.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(portalOwner)))
        {
            return portal.owner();
        }
        throw new IOException(home + " belongs to user " + portal.owner().getName() + ", not to " + own.getName() +
            (portalOwner != null ? " nor to the portal owner " + portalOwner : "") + " (another user may have taken " +
            "the portal's name; " + ShmTransport.PORTAL_OWNER_PROPERTY + " names a user whose portals to trust)");
    }

    /** The group a ring for {@code portal}, another user's portal, is shared with: the one configured, no other. */
    GroupPrincipal sharedGroup(final UserPrincipal portal) throws IOException
    {
        if (group == null)
        {
            throw new IOException("the portal runs as user " + portal.getName() + ": sharing a ring with another " +
                "user needs a group both are in (" + ShmTransport.GROUP_PROPERTY + " or the ShmTransport constructor)");
        }
        return directory.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(group);
    }

    /** A ring file name of 128 random bits: in a directory the group cannot list, only the socket tells it. */
    static String secretName()
    {
        final byte[] bits = new byte[16];
        SECRET_NAMES.nextBytes(bits);
        final StringBuilder name = new StringBuilder(37);
        for (final byte b : bits)
        {
            name.append(Character.forDigit((b >>> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return name.append(".ring").toString();
    }

    /**
     * Opens a complete ring for another user's portal to the group {@code shared}: the file readable and writable by
     * it (0660), then its directory {@code ringHome} enterable but not listable (0710), so the group finds the
     * directory closed until the file in it is ready.
     */
    static void share(final Path ringHome, final Path ringFile, final GroupPrincipal shared) throws IOException
    {
        Files.getFileAttributeView(ringFile, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setGroup(shared);
        Files.setPosixFilePermissions(ringFile, PosixFilePermissions.fromString("rw-rw----"));
        final PosixFileAttributeView home = Files.getFileAttributeView(ringHome, PosixFileAttributeView.class,
            LinkOption.NOFOLLOW_LINKS);
        home.setGroup(shared);
        home.setPermissions(PosixFilePermissions.fromString("rwx--x---"));
    }
}
