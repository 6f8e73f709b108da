package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** An unreachable server is a transport error in every era, and says which URL. */
class ConnectErrorsTest {
    @Test
    void anUnreachableServerIsATransportErrorInEveryEra() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String url = "http://127.0.0.1:" + port + "/mcp";
        for (String era : new String[] {"auto", "session", "stateless"}) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> McpClient.connect(McpClient.Options.http(url).era(era)).get(30, TimeUnit.SECONDS));
            McpException cause = assertInstanceOf(McpException.class, e.getCause(), era);
            assertEquals(McpException.Kind.TRANSPORT, cause.kind(), era + ": " + cause.getMessage());
            assertTrue(cause.getMessage().contains(url), era + ": " + cause.getMessage());
        }
    }
}
