module smtpdiag.org/smtpdiag

go 1.19
