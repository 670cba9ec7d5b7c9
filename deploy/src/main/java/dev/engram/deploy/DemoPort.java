package dev.engram.deploy;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.util.Map;

import dev.engram.config.EngramConfig;
import dev.engram.streams.PipelineConfig;

/**
 * Which HTTP port the demo's retriever takes, decided before anything starts or the run directory is emptied, so a port
 * in use is refused at once.
 */
final class DemoPort {

    /** The README's port. */
    static final int DEFAULT_PORT = 8080;

    private DemoPort() {
    }

    /**
     * --port when given; else {@code retriever.http.port} when the environment sets it
     * ({@code ENGRAM_RETRIEVER_HTTP_PORT}); else 8080, or a free port when 8080 is taken (said on standard output: a
     * second demo, or a curl copied from the README, would otherwise reach whatever holds 8080).
     *
     * @param port {@code --port}, or null when not given
     * @param out the demo's standard output
     * @return the port, 0 for any free port, or -1 (said on standard error) when a port asked for is in use
     */
    static int choose(final Integer port, final PrintStream out) {
        final int wanted = port != null ? port
            : EngramConfig.load(null, System.getenv(), Map.of()).getInt(PipelineConfig.RETRIEVER_HTTP_PORT);
        if (port == null && wanted == DEFAULT_PORT) {
            if (isFree(DEFAULT_PORT)) {
                return DEFAULT_PORT;
            }
            out.printf("Port %d is in use (another demo or service?): the retriever takes a free port instead, printed "
                + "with the API below; --port N chooses one.%n", DEFAULT_PORT);
            return 0;
        }
        if (wanted != 0 && !isFree(wanted)) {
            System.err.printf("engram demo: port %d is in use: stop what holds it, or pass --port 0 (any free port)%n", wanted);
            return -1;
        }
        return wanted;
    }

    private static boolean isFree(final int candidate) {
        try (ServerSocket socket = new ServerSocket(candidate)) {
            socket.setReuseAddress(true);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
