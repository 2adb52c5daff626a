"""Simulation: agents, simulated users and the contracts between them and the episode loop."""
