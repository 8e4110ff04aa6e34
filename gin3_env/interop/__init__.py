"""Bridges to other game libraries (optional extras). See :mod:`gin3_env.interop.openspiel`."""
