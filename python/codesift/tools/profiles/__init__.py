"""One module and one data file per profile: the data file (`NAME.json`) holds the tools as
the profile publishes them, the module their handlers and `PROFILE`, one agent's tool set."""
