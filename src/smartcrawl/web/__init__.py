"""The test-bed web: synthetic (websim) and real (Debian documentation) sites, stored and served on loopback."""
