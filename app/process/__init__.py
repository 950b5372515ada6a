"""The running process: DATA_DIR ownership and its vault record, bind-address rules, logging and tracing setup."""
