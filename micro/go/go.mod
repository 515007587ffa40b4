module arena/micro/go

go 1.19
