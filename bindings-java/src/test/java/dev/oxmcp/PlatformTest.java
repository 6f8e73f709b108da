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
}
