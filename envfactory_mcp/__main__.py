from envfactory_mcp.cli import main

main()
