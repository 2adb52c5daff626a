"""Trajectories: the record of one episode, the run directory that stores them, exports."""
