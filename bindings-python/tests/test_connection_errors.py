"""Connection failures are the host's own connection errors, and say what failed."""

import pytest

from conftest import free_port, run
from oxmcp import Client, McpError, Server, TransportError


@pytest.mark.parametrize("era", ["auto", "session", "stateless"])
def test_an_unreachable_server_is_a_transport_error_in_every_era(era):
    url = f"http://127.0.0.1:{free_port()}/mcp"

    async def go():
        with pytest.raises(TransportError) as failed:
            await Client.connect_http(url, era=era)
        assert isinstance(failed.value, ConnectionError)
        assert url in str(failed.value)

    run(go())


def test_a_taken_address_is_named():
    async def go():
        first = Server("first")
        url = await first.start_http("127.0.0.1", 0)
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        try:
            with pytest.raises(McpError) as failed:
                await Server("second").start_http("127.0.0.1", port)
            assert str(failed.value).count(f"127.0.0.1:{port}") == 1, str(failed.value)
        finally:
            await first.stop_http()

    run(go())
