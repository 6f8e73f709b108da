package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar folder a JVM looks in for its native library, by OS, architecture and C library. */
class PlatformTest {
    @Test
    void eachPlatformHasItsFolderAndMuslIsToldFromGlibc(@TempDir Path glibc, @TempDir Path musl) throws Exception {
        Files.createDirectories(musl.resolve("lib"));
        Files.createFile(musl.resolve("lib/ld-musl-x86_64.so.1"));
        Files.createFile(musl.resolve("lib/ld-musl-aarch64.so.1"));
        assertEquals("linux-x86_64", Native.platform("Linux", "amd64", glibc));
        assertEquals("linux-aarch64", Native.platform("Linux", "aarch64", glibc));
        assertEquals("linux-musl-x86_64", Native.platform("Linux", "amd64", musl));
        assertEquals("linux-musl-aarch64", Native.platform("Linux", "aarch64", musl));
        assertEquals("macos-aarch64", Native.platform("Mac OS X", "aarch64", musl), "musl's loader means nothing on macOS");
        assertEquals("macos-x86_64", Native.platform("Mac OS X", "x86_64", glibc));
        assertEquals("windows-x86_64", Native.platform("Windows 11", "amd64", glibc));
        assertNull(Native.platform("SunOS", "sparcv9", glibc));
        assertNull(Native.platform("Linux", "riscv64", glibc));
    }

    @Test
    void theProcesssOwnLoaderDecidesWhereProcCanBeRead(@TempDir Path glibcWithMusl, @TempDir Path alpine) throws Exception {
        // A glibc system with musl installed beside: musl's loader is in /lib, but the JVM's
        // mapped loader is glibc's.
        Files.createDirectories(glibcWithMusl.resolve("lib"));
        Files.createFile(glibcWithMusl.resolve("lib/ld-musl-x86_64.so.1"));
        Files.createDirectories(glibcWithMusl.resolve("proc/self"));
        Files.writeString(glibcWithMusl.resolve("proc/self/maps"),
                "7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n");
        assertEquals("linux-x86_64", Native.platform("Linux", "amd64", glibcWithMusl));
        // Alpine's JVM: musl's loader is mapped.
        Files.createDirectories(alpine.resolve("proc/self"));
        Files.writeString(alpine.resolve("proc/self/maps"), "7f00-7f01 r-xp 00000000 08:01 1 /lib/ld-musl-x86_64.so.1\n");
        assertEquals("linux-musl-x86_64", Native.platform("Linux", "amd64", alpine));
    }
}
