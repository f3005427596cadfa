"""The measurement agent: register, heartbeat, lease, build + check + time in a child, report."""
