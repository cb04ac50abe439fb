"""wxclient: the client of the weather data API used by the logistics planner."""
