"""One module per profile: each defines `PROFILE`, one agent's tool set."""
