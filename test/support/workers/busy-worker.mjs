// Never answers: a parse stuck in a catastrophic regular expression, as far as the parent can tell.
const evil = /^(a+)+$/;
const input = 'a'.repeat(40) + '!';
for (;;) evil.test(input);
