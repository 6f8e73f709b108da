# Sourced by the scripts: makes sure cargo is on PATH (rustup's default location).
if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "error: cargo not found; install Rust (rustup) first" >&2
    exit 1
  fi
fi
