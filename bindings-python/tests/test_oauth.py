"""OAuth with real parts: an oidc-provider authorization server (tests/auth/provider.mjs)
and a protected oxmcp server (`oxmcp everything-server --auth-issuer`). The Python client
gets tokens by client credentials and by the authorization code grant, whose browser the
test plays over HTTP (login form, consent form, redirect back)."""

import asyncio
import http.cookiejar
import json
import os
import re
import subprocess
import urllib.parse
import urllib.request
from contextlib import contextmanager
from typing import Any

import pytest

from conftest import REPO, free_port, oxmcp_bin, run, wait_listening
from oxmcp import Client, Context, OAuth, Server, Unauthorized

NODE = REPO / "tests" / "auth" / "node_modules" / "node" / "bin" / "node"
PROVIDER = REPO / "tests" / "auth" / "provider.mjs"


@contextmanager
def authorization_server():
    """Yields the issuer URL of a running oidc-provider; stops it by pid."""
    as_port = free_port()
    proc = subprocess.Popen([str(NODE), str(PROVIDER), str(as_port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(proc, as_port, "the authorization server")
        yield f"http://127.0.0.1:{as_port}"
    finally:
        proc.terminate()
        proc.wait(10)


@contextmanager
def protected_server():
    """Yields (issuer URL, protected MCP URL) of the CLI's everything server."""
    port = free_port()
    with authorization_server() as issuer:
        proc = subprocess.Popen([oxmcp_bin(), "everything-server", "--http", f"127.0.0.1:{port}", "--auth-issuer", issuer,
                                 "--auth-scopes", "mcp:read"], stderr=subprocess.DEVNULL)
        try:
            wait_listening(proc, port, "the protected server")
            yield issuer, f"http://127.0.0.1:{port}/mcp"
        finally:
            proc.terminate()
            proc.wait(10)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def play_browser(url: str, user: str) -> str:
    """Logs in and consents at the authorization server; returns the URL it sends the
    browser back to (not visited: that is the client's business)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _NoRedirect)
    request = urllib.request.Request(url)
    for _ in range(20):
        try:
            resp = opener.open(request)
        except urllib.error.HTTPError as e:
            if e.code not in (302, 303):
                raise
            url = urllib.parse.urljoin(url, e.headers["location"])
            if urllib.parse.urlparse(url).path == "/callback":
                return url
            request = urllib.request.Request(url)
            continue
        html = resp.read().decode()
        action = urllib.parse.urljoin(url, re.search(r'<form[^>]*action="([^"]+)"', html).group(1))
        prompt = re.search(r'name="prompt" value="(\w+)"', html).group(1)
        fields = {"prompt": prompt, "login": user, "password": "any"} if prompt == "login" else {"prompt": prompt}
        url = action
        request = urllib.request.Request(action, data=urllib.parse.urlencode(fields).encode())
    raise AssertionError("the authorization did not come back")


def whoami(result) -> dict[str, Any]:
    claims: dict[str, Any] = json.loads(result.content[0].text)
    return claims


def test_client_credentials_and_the_authorization_code_grant(tmp_path):
    with protected_server() as (issuer, url):
        async def main():
            # A machine: client credentials, plain options.
            machine = OAuth(client_id="machine", client_secret="machine-secret", grant="client_credentials")
            async with Client.http(url, auth=machine) as c:
                who = whoami(await c.call_tool("whoami"))
                assert who["subject"] == "machine" and who["scopes"] == ["mcp:read"] and who["claims"]["aud"] == url
            assert "machine-secret" not in repr(machine)
            # Credentials pinned to another authorization server never go to this one.
            pinned = OAuth(client_id="machine", client_secret="machine-secret", grant="client_credentials",
                           issuer="https://as.example.com")
            with pytest.raises(Unauthorized, match="as.example.com"):
                await Client.http(url, auth=pinned)
            pinned.issuer = issuer
            async with Client.http(url, auth=pinned) as c:
                assert whoami(await c.call_tool("whoami"))["subject"] == "machine"

            # A user: the browser is reached through the two handlers.
            landed = []

            async def redirect_handler(authorization_url: str) -> None:
                assert authorization_url.startswith(issuer + "/auth?")
                landed.append(await asyncio.to_thread(play_browser, authorization_url, "bob"))

            async def callback_handler() -> str:
                return landed[-1]

            tokens = tmp_path / "tokens.json"
            user = OAuth(redirect_uri="http://127.0.0.1:9/callback", redirect_handler=redirect_handler,
                         callback_handler=callback_handler, token_file=str(tokens))
            async with Client.http(url, auth=user) as c:
                assert whoami(await c.call_tool("whoami"))["subject"] == "bob"
            assert len(landed) == 1
            assert oct(os.stat(tokens).st_mode & 0o777) == "0o600"

            # The kept tokens serve the next client without the browser.
            async def no_browser(_url: str) -> None:
                raise AssertionError("the browser was asked again")
            again = OAuth(redirect_uri="http://127.0.0.1:9/callback", redirect_handler=no_browser,
                          callback_handler=callback_handler, token_file=str(tokens))
            async with Client.http(url, auth=again) as c:
                assert whoami(await c.call_tool("whoami"))["subject"] == "bob"

            # A forged redirect (another flow's state) is refused: Unauthorized, no crash.
            async def forged() -> str:
                return "http://127.0.0.1:9/callback?code=stolen&state=not-this-flow"
            fresh = OAuth(redirect_uri="http://127.0.0.1:9/callback", redirect_handler=lambda u: None, callback_handler=forged)
            with pytest.raises(Unauthorized, match="state"):
                await Client.http(url, auth=fresh)

            # Without a way to the browser, a protected server is a clear Unauthorized.
            with pytest.raises(Unauthorized):
                await Client.http(url)
        run(main())


def test_oauth_options_are_checked():
    with pytest.raises(Exception, match="both redirect_handler and callback_handler"):
        run(Client.http("http://127.0.0.1:9/mcp", auth=OAuth(redirect_handler=lambda u: None)))


def test_a_python_server_protected_by_oauth():
    """A Python server behind OAuth: tokens checked against the issuer's keys, scopes per
    server and per tool, and who the token speaks for in the handler's context."""
    server = Server("guarded")

    @server.tool()
    def whoami(ctx: Context) -> str:
        return json.dumps({"subject": ctx.auth.subject, "scopes": list(ctx.auth.scopes), "client": ctx.auth.client_id})

    @server.tool()
    def erase() -> str:
        return "erased"

    with authorization_server() as issuer:
        async def main():
            url = await server.start_http("127.0.0.1", 0, auth_issuer=issuer, auth_scopes=["mcp:read"],
                                          tool_scopes={"erase": ["mcp:write"]})
            try:
                reader = OAuth(client_id="machine", client_secret="machine-secret", grant="client_credentials", scope="mcp:read")
                async with Client.http(url, auth=reader) as c:
                    assert json.loads((await c.call_tool("whoami")).content[0].text) == {
                        "subject": "machine", "scopes": ["mcp:read"], "client": "machine"}
                    # The tool's own scope: the client steps up (asks for both) and goes on.
                    assert (await c.call_tool("erase")).content[0].text == "erased"
                    who = json.loads((await c.call_tool("whoami")).content[0].text)
                    assert sorted(who["scopes"]) == ["mcp:read", "mcp:write"]
                # No token: refused, clearly.
                with pytest.raises(Unauthorized):
                    await Client.http(url)
            finally:
                await server.stop_http()
        run(main())


def test_a_host_function_checks_the_tokens():
    """The host's own token check instead of JWTs: who it says the token is reaches the
    handler; a token it refuses (None) is a 401 the client reports as Unauthorized."""
    server = Server("checked")
    seen = []

    @server.token_verifier
    async def check(token: str):
        seen.append(token)
        return {"subject": "alice", "client_id": "cli", "scopes": ["mcp:read"]} if token == "s3cret" else None

    @server.tool()
    def whoami(ctx: Context) -> str:
        return json.dumps([ctx.auth.subject, ctx.auth.client_id, list(ctx.auth.scopes)])

    async def main():
        url = await server.start_http("127.0.0.1", 0, auth_issuer="https://as.example.com", auth_scopes=["mcp:read"])
        try:
            async with Client.http(url, headers={"Authorization": "Bearer s3cret"}) as c:
                assert json.loads((await c.call_tool("whoami")).content[0].text) == ["alice", "cli", ["mcp:read"]]
            with pytest.raises(Unauthorized):
                await Client.http(url, headers={"Authorization": "Bearer guess"})
            assert "guess" in seen and "s3cret" in seen
        finally:
            await server.stop_http()
    run(main())
