module example.com/buildable

go 1.26.0
