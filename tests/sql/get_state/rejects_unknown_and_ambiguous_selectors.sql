-- A version or cursor beyond the channel's is AC404, as is an unknown channel; passing
-- both version and at_cursor is AC400, as are negative selectors.
begin;
\ir ../helpers.psql
select plan(6);

select actae.transition_state('tap-st404', 't', '{}', '{}', 0);
select throws_ok($$select actae.get_state('tap-st404', 2)$$, 'AC404', null,
    'a version beyond the current one is AC404');
select throws_ok($$select actae.get_state('tap-st404', null, 2)$$, 'AC404', null,
    'a cursor beyond the head is AC404');
select throws_ok($$select actae.get_state('tap-nowhere')$$, 'AC404', null,
    'an unknown channel is AC404');
select throws_ok($$select actae.get_state('tap-st404', 1, 1)$$, 'AC400',
    'pass version or at_cursor, not both', 'both selectors is AC400');
select throws_ok($$select actae.get_state('tap-st404', -1)$$, 'AC400', null,
    'a negative version is AC400');
select throws_ok($$select actae.get_state('tap-st404', null, -1)$$, 'AC400', null,
    'a negative at_cursor is AC400');

select * from finish();
rollback;
