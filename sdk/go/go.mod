module slipgate/sdk

go 1.21
