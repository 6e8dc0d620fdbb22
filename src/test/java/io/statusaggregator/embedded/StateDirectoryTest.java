package io.statusaggregator.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded default's state directory: used only when it is this user's own and no one else may write it. */
class StateDirectoryTest {
    @TempDir
    Path temp;

    private Path directory(String mode) throws IOException {
        Path directory = Files.createDirectory(temp.resolve("state-" + mode.replace('-', '_')));
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString(mode));
        return directory;
    }

    @Test
    void aMissingDirectoryIsCreatedPrivate() throws IOException {
        Path missing = temp.resolve("a/status-aggregator");
        assertEquals(Optional.empty(), StateDirectory.prepare(missing));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(missing)));
    }

    @Test
    void theUsersOwnPrivateDirectoryIsUsed() throws IOException {
        assertEquals(Optional.empty(), StateDirectory.prepare(directory("rwx------")));
        assertEquals(Optional.empty(), StateDirectory.prepare(directory("rwxr-xr-x")), "others may read; they cannot plant");
    }

    @Test
    void aDirectoryOthersMayWriteIsRefusedNamingItAndWhatToDo() throws IOException {
        for (String mode : new String[] {"rwxrwxrwx", "rwxrwx---", "rwx-w----", "rwx----w-"}) {
            Path directory = directory(mode);
            Optional<String> refusal = StateDirectory.prepare(directory);
            assertEquals(Optional.of("the embedded default's state directory " + directory + " may be written by others ("
                    + PosixFilePermissions.toString(Files.getPosixFilePermissions(directory)) + "): chmod 700 " + directory
                    + ", or set aggregator.embedded.kubeconfig (AGGREGATOR_EMBEDDED_KUBECONFIG) to a file in a directory "
                    + "of your own"), refusal, mode);
        }
    }

    /** Only root can give a directory away; elsewhere one that root owns stands for another user's. */
    @Test
    void anotherUsersDirectoryIsRefusedEvenWhenPrivate() throws IOException {
        String me = System.getProperty("user.name");
        Path theirs;
        String owner;
        if (me.equals("root")) {
            UserPrincipal nobody = FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
            theirs = directory("rwx------");
            Files.setOwner(theirs, nobody);
            owner = nobody.getName();
        } else {
            theirs = Path.of("/");
            owner = Files.getOwner(theirs).getName();
            assumeTrue(!owner.equals(me), "/ belongs to this user: no directory of another user to try");
        }
        Optional<String> refusal = StateDirectory.prepare(theirs);
        assertEquals(Optional.of("the embedded default's state directory " + theirs + " belongs to " + owner + ", not to " + me
                + ": remove it (its owner or root can), or set aggregator.embedded.kubeconfig (AGGREGATOR_EMBEDDED_KUBECONFIG) "
                + "to a file in a directory of your own"), refusal);
    }

    /** Whoever owns a link decides where it points: one of another user's is refused, whatever its target. */
    @Test
    void anotherUsersLinkToAPrivateDirectoryIsRefused() throws IOException {
        assumeTrue(System.getProperty("user.name").equals("root"), "only root can give a link away");
        Path link = Files.createSymbolicLink(temp.resolve("link"), directory("rwx------"));
        UserPrincipal nobody = FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.getFileAttributeView(link, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setOwner(nobody);
        Optional<String> refusal = StateDirectory.prepare(link);
        assertTrue(refusal.isPresent() && refusal.get().contains(link + " is a symbolic link that belongs to nobody, not to root"),
                refusal.toString());
        Path mine = Files.createSymbolicLink(temp.resolve("mine"), directory("rwx-----x"));
        assertEquals(Optional.empty(), StateDirectory.prepare(mine), "this user's own link to this user's own directory");
    }

    @Test
    void aFileWhereTheDirectoryShouldBeIsRefused() throws IOException {
        Path file = Files.writeString(temp.resolve("status-aggregator"), "");
        Optional<String> refusal = StateDirectory.prepare(file);
        assertTrue(refusal.isPresent() && refusal.get().contains(file + " is not a directory"), refusal.toString());
    }
}
