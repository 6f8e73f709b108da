"""OAuth for :meth:`Client.http`: the engine runs the MCP authorization flow (discovery,
registration, PKCE, token refresh, step-up); this says who the client is and, for the
authorization code grant, how the user's browser is reached."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal, Optional, Union

#: How tokens are obtained: a user in a browser, or the client on its own behalf.
Grant = Literal["authorization_code", "client_credentials"]


@dataclass
class OAuth:
    """How a client authorizes at a protected server.

    A user's browser (the authorization code grant)::

        async def redirect_handler(url: str) -> None:
            webbrowser.open(url)                    # show the user where to authorize

        async def callback_handler() -> str:
            return await wait_for_redirect()        # the URL the browser came back to

        auth = OAuth(redirect_uri="http://127.0.0.1:8765/callback",
                     redirect_handler=redirect_handler, callback_handler=callback_handler)
        async with Client.http(url, auth=auth) as client: ...

    A machine (client credentials): ``OAuth(client_id="id", client_secret="secret",
    grant="client_credentials")``.

    ``callback_handler`` returns the whole URL the browser was sent back to: the engine
    checks its ``state`` and ``iss`` before it uses the code. Tokens live in memory, or in
    ``token_file`` (readable by its owner only) to outlive the process. ``issuer`` pins the
    authorization server a secret or key belongs to: a server that names another one is
    refused, so the secret never reaches it.
    """

    client_id: Optional[str] = None
    client_secret: Optional[str] = field(default=None, repr=False)
    grant: Grant = "authorization_code"
    scope: Optional[str] = None
    client_name: Optional[str] = None
    redirect_uri: Optional[str] = None
    client_metadata_url: Optional[str] = None
    private_key_pem: Optional[str] = field(default=None, repr=False)
    signing_alg: Optional[str] = None
    issuer: Optional[str] = None
    token_file: Optional[str] = None
    redirect_handler: Optional[Callable[[str], Union[Awaitable[None], None]]] = None
    callback_handler: Optional[Callable[[], Union[Awaitable[str], str]]] = None

    def _options(self) -> dict[str, Any]:
        """The engine's options (camelCase JSON), without the handlers."""
        names = {"client_id": "clientId", "client_secret": "clientSecret", "grant": "grant", "scope": "scope",
                 "client_name": "clientName", "redirect_uri": "redirectUri",
                 "client_metadata_url": "clientMetadataUrl", "private_key_pem": "privateKeyPem",
                 "signing_alg": "signingAlg", "issuer": "issuer"}
        return {wire: getattr(self, attr) for attr, wire in names.items() if getattr(self, attr) is not None}

    @property
    def _interactive(self) -> bool:
        return self.redirect_handler is not None or self.callback_handler is not None
