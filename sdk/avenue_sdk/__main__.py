from avenue_sdk.cli import main

raise SystemExit(main())
